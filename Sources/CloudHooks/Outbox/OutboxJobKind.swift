import JSON
import Storage
import Telemetry

/// One kind of outbox job, with everything about it side by side: its name in the outbox, its
/// lane, the payload it writes and how that payload is read back. The code that enqueues a job
/// and the handler that runs it share the type, so a key cannot be written under one name (or
/// type) and read under another.
package protocol OutboxJobKind: Sendable {
    /// The `outbox.kind` of these jobs: unique among every kind of the program (a worker's
    /// `OutboxJobTable` refuses a second handler for one).
    static var kind: String { get }
    static var lane: OutboxLane { get }
    /// The payload's members.
    var payload: [String: JSONValue] { get }
    /// Reads a payload written by `payload` (or by an older version of it); throws
    /// `JobInput.Malformed` otherwise: the job dies after its retries instead of doing
    /// something else.
    init(_ input: JobInput) throws
}

extension OutboxJobKind {
    /// Queues the job inside the caller's write.
    package func enqueue(idempotencyKey: String? = nil, availableAt: Int64? = nil, now: Int64, on connection: any DatabaseConnection) throws {
        try Outbox().enqueue(kind: Self.kind, payload: JobInput.encode(payload), idempotencyKey: idempotencyKey, lane: Self.lane,
                             availableAt: availableAt, now: now, on: connection)
    }

    /// The job `job` is, when it is one of these.
    package static func decode(_ job: OutboxJob) throws -> Self {
        guard job.kind == kind else { throw JobInput.Malformed(description: "a \(job.kind) job is not a \(kind) job") }
        return try Self(JobInput(job))
    }
}

/// A second handler for a kind: a start-up failure, never a silent choice between the two.
package struct DuplicateJobKind: Error, CustomStringConvertible {
    package let kind: String
    package var description: String { "two handlers for outbox jobs of kind \(kind)" }
}

/// The handlers of one lane's `OutboxWorker`, built from the job kinds: each registration names
/// its kind's type, so the table's keys are the types' `kind`s, and a kind registered twice
/// (here or in a table merged in) throws at start-up.
package struct OutboxJobTable: Sendable {
    package private(set) var handlers: [String: OutboxWorker.Handler] = [:]
    package private(set) var groupHandlers: [String: OutboxWorker.GroupHandler] = [:]

    package init() {}

    /// `run` for each job of `Kind`, with its payload read.
    package mutating func on<Kind: OutboxJobKind>(_ type: Kind.Type, _ run: @escaping @Sendable (Kind, any DatabaseConnection) throws -> Void) throws {
        guard handlers[Kind.kind] == nil else { throw DuplicateJobKind(kind: Kind.kind) }
        handlers[Kind.kind] = { job, connection in try run(try Kind.decode(job), connection) }
    }

    /// `run` for many jobs of `Kind` at once (`OutboxWorker.GroupHandler`), each with its payload
    /// read, in the worker's order. The kind needs its single handler (`on`) too: a group that
    /// fails runs again job by job.
    package mutating func onGroups<Kind: OutboxJobKind>(
        _ type: Kind.Type, _ run: @escaping @Sendable ([(job: OutboxJob, input: Kind)], any DatabaseConnection) throws -> Void
    ) throws {
        guard groupHandlers[Kind.kind] == nil else { throw DuplicateJobKind(kind: Kind.kind) }
        groupHandlers[Kind.kind] = { jobs, connection in try run(try jobs.map { ($0, try Kind.decode($0)) }, connection) }
    }

    /// This table and `other` together; a kind in both throws.
    package func merging(_ other: OutboxJobTable) throws -> OutboxJobTable {
        var merged = self
        for (kind, handler) in other.handlers {
            guard merged.handlers[kind] == nil else { throw DuplicateJobKind(kind: kind) }
            merged.handlers[kind] = handler
        }
        for (kind, handler) in other.groupHandlers {
            guard merged.groupHandlers[kind] == nil else { throw DuplicateJobKind(kind: kind) }
            merged.groupHandlers[kind] = handler
        }
        return merged
    }
}

extension OutboxWorker {
    /// A worker running the jobs of `jobs`.
    package convenience init(
        database: any Database, jobs: OutboxJobTable, clock: any WallClock = SystemClock(), configuration: Configuration = .init(),
        observe: @escaping @Sendable (OutboxJob, Outcome, (any Error)?) -> Void = { _, _, _ in }
    ) {
        self.init(database: database, handlers: jobs.handlers, groupHandlers: jobs.groupHandlers, clock: clock,
                  configuration: configuration, observe: observe)
    }
}
