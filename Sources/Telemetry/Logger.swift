import JSON
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Severity of a log record, ordered from least to most severe.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case debug, info, warning, error

    /// Parses "debug", "info", "warning" or "error" (case-insensitive).
    public init?(name: String) {
        switch name.lowercased() {
        case "debug": self = .debug
        case "info": self = .info
        case "warning": self = .warning
        case "error": self = .error
        default: return nil
        }
    }

    /// The lower-case name used in log output.
    public var name: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One log event as handed to a `LogHandler`. Metadata keeps its insertion order.
public struct LogRecord: Sendable {
    public let level: LogLevel
    public let message: String
    /// Logger metadata first (in the order `with` added it), then the call's own pairs.
    public let metadata: [(String, String)]
    public let timestampMillis: Int64

    public init(level: LogLevel, message: String, metadata: [(String, String)], timestampMillis: Int64) {
        self.level = level
        self.message = message
        self.metadata = metadata
        self.timestampMillis = timestampMillis
    }

    /// The value of the first metadata pair named `key`.
    public func metadataValue(_ key: String) -> String? {
        metadata.first(where: { $0.0 == key })?.1
    }
}

/// A log backend, chosen once at startup. Called on whatever thread logs; must be thread-safe.
public protocol LogHandler: Sendable {
    func log(_ record: LogRecord)
}

/// The front type every module logs through (swift-log's shape).
///
/// A value type: `with` returns a copy carrying extra metadata, so a request's logger can carry
/// its request id without touching the server's. Never put passwords, tokens, request bodies
/// or headers in messages or metadata.
public struct Logger: Sendable {
    public let handler: any LogHandler
    /// Records below this level are dropped before their message is built.
    public var level: LogLevel
    var metadata: [(String, String)] = []

    public init(handler: any LogHandler, level: LogLevel = .info) {
        self.handler = handler
        self.level = level
    }

    /// A copy of this logger that adds `key: value` to every record.
    public func with(_ key: String, _ value: String) -> Logger {
        var copy = self
        copy.metadata.append((key, value))
        return copy
    }

    /// Logs at `level`; `message` is evaluated only when the level is enabled.
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, _ extra: KeyValuePairs<String, String> = [:]) {
        guard level >= self.level else { return }
        var all = metadata
        for (k, v) in extra { all.append((k, v)) }
        handler.log(LogRecord(level: level, message: message(), metadata: all, timestampMillis: currentTimeMillis()))
    }

    public func debug(_ message: @autoclosure () -> String, _ metadata: KeyValuePairs<String, String> = [:]) {
        log(.debug, message(), metadata)
    }

    public func info(_ message: @autoclosure () -> String, _ metadata: KeyValuePairs<String, String> = [:]) {
        log(.info, message(), metadata)
    }

    public func warning(_ message: @autoclosure () -> String, _ metadata: KeyValuePairs<String, String> = [:]) {
        log(.warning, message(), metadata)
    }

    public func error(_ message: @autoclosure () -> String, _ metadata: KeyValuePairs<String, String> = [:]) {
        log(.error, message(), metadata)
    }
}

/// Wall-clock milliseconds since the Unix epoch.
public func currentTimeMillis() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
}

/// Writes one JSON object per line:
/// `{"ts":"2026-11-29T13:20:18.123Z","level":"info","msg":"listening",<metadata in order>}`.
///
/// Each record is one `write(2)` made under a mutex, so lines from concurrent threads never
/// interleave. A later metadata pair with the same key as an earlier one is still written
/// (JSON readers keep the last).
public struct JSONLinesLogHandler: LogHandler {
    let fd: Int32
    let lock: FileLock

    /// Writes to `fileDescriptor` (2 = stderr by default). The descriptor is not closed.
    public init(fileDescriptor: Int32 = 2) {
        fd = fileDescriptor
        lock = FileLock()
    }

    /// The exact bytes written for `record`, newline included.
    public static func format(_ record: LogRecord) -> [UInt8] {
        var w = JSONWriter(capacity: 256)
        w.beginObject()
        w.field("ts", ISO8601Millis.format(millisecondsSince1970: record.timestampMillis))
        w.field("level", record.level.name)
        w.field("msg", record.message)
        for (k, v) in record.metadata { w.key(k); w.value(v) }
        w.endObject()
        var bytes = w.bytes
        bytes.append(0x0A)
        return bytes
    }

    public func log(_ record: LogRecord) {
        let line = Self.format(record)
        lock.mutex.withLock { _ in
            line.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                var offset = 0
                // Loop only for short writes (pipes under pressure); EINTR is retried.
                while offset < raw.count {
                    let n = write(fd, base + offset, raw.count - offset)
                    if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { break }
                }
            }
        }
    }
}

/// Reference wrapper so copies of a handler share one lock.
final class FileLock: Sendable {
    let mutex = Mutex(())
}

/// Keeps records in memory, for tests that assert what was (and was not) logged.
public final class InMemoryLogHandler: LogHandler {
    let storage = Mutex<[LogRecord]>([])

    public init() {}

    /// Every record logged so far, oldest first.
    public var records: [LogRecord] { storage.withLock { $0 } }

    public func log(_ record: LogRecord) {
        storage.withLock { $0.append(record) }
    }
}

/// Drops every record.
public struct NullLogHandler: LogHandler {
    public init() {}
    public func log(_ record: LogRecord) {}
}

/// An error whose `description` is safe to log: it names what failed and never carries
/// request data, bound values, passwords or tokens. The HTTP layer logs the description of
/// such errors when they become a 500; of any other error, only its type.
public protocol SafelyDescribedError: Error, CustomStringConvertible {}
