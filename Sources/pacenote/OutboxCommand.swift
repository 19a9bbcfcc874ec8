import Foundation
import CloudHooks
import JSON
import SocialAPI
import Storage
import Telemetry

/// `pacenote outbox list [--dead]` and `pacenote outbox retry ID|--all-dead`: what the
/// background workers have queued, and a second chance for what they gave up on.
enum OutboxCommand {
    static let listSpec = CommandSpec(
        synopsis: "outbox list [--dead] [--limit N]",
        summary: "Lists outbox jobs, newest first: seq, lane, kind, state, attempts, when due, last error.",
        flags: [
            .init("dead", nil, "only the jobs given up on (dead letters)"),
            .init("limit", "N", "at most this many (50)"),
        ] + CommonOptions.flags
    )
    static let retrySpec = CommandSpec(
        synopsis: "outbox retry ID|--all-dead",
        summary: "Makes a dead job (or every dead job) due again, with its attempts counted from zero; a running server picks it up.",
        flags: [.init("all-dead", nil, "every dead job")] + CommonOptions.flags
    )
    static let spec = CommandSpec(synopsis: "outbox COMMAND", summary: "Inspects and retries the outbox.", flags: [],
                                  subcommands: [listSpec, retrySpec])

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let action = arguments.first else { throw Options.UsageError(description: "outbox needs list or retry") }
        let rest = Array(arguments.dropFirst())
        switch action {
        case "--help", "-h":
            throw HelpRequested(spec: spec)
        case "list":
            let options = try Options(rest, spec: listSpec)
            let limit = try options.int("limit", default: 50, range: 1...100_000)
            let dead = try options.bool("dead")
            let entries = try CommandDatabase.with(options) { database in try database.read { try Outbox().list(deadOnly: dead, limit: limit, on: $0) } }
            print(["SEQ", "LANE", "KIND", "STATE", "ATTEMPTS", "DUE", "LAST ERROR"].joined(separator: "\t"))
            for entry in entries {
                var writer = JSONWriter()
                writer.timestamp(millisecondsSince1970: entry.availableAt)
                let due = String(decoding: writer.bytes, as: UTF8.self).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                print([String(entry.seq), entry.lane, entry.kind, entry.state.rawValue, String(entry.attempts), due, entry.lastError ?? ""].joined(separator: "\t"))
            }
            return 0
        case "retry":
            let options = try Options(rest, spec: retrySpec)
            let all = try options.bool("all-dead")
            let seq: Int64?
            switch (all, options.positional.count) {
            case (true, 0): seq = nil
            case (false, 1):
                guard let number = Int64(options.positional[0]) else { throw Options.UsageError(description: "outbox retry takes a job's seq (a number)") }
                seq = number
            default: throw Options.UsageError(description: "outbox retry takes one ID or --all-dead")
            }
            let revived = try CommandDatabase.with(options) { database in
                try database.write { try Outbox().revive(seq: seq, now: SystemClock().nowMillis(), on: $0) }
            }
            print("\(revived) job\(revived == 1 ? "" : "s") due again")
            return seq != nil && revived == 0 ? 1 : 0
        default:
            throw Options.UsageError(description: "unknown outbox action \(action)")
        }
    }
}
