import Foundation
import JSON

/// One element of an export file, read and mapped, ready to be written.
enum Prepared<Row: Sendable>: Sendable {
    /// A row to insert, with the notes to keep if it is imported.
    case row(Row, objectId: String, notes: [String])
    /// An element skipped before reaching the database (mapper refusal, malformed, oversized).
    case skip(objectId: String, reason: String)
}

/// Reads and maps one export file on a thread of its own, handing the results to the
/// writing thread in file order.
///
/// Reading and mapping (JSON parsing, dates, text rules) were a quarter of the import's time
/// and need no database, so they run beside the SQLite writes, one core each. Memory stays
/// bounded: at most `readAhead` elements (in chunks of `chunkSize`) wait at once, and a
/// prepared element is cut to the schema's lengths by its mapper.
///
/// The consumer calls `next()` until it answers nil, or `cancel()` to stop early; both
/// return only once the reading thread will not touch the reader again. Not Sendable: one
/// stream, one consumer thread.
final class PreparedStream<Row: Sendable> {
    /// What `next()` answers.
    enum Item {
        /// One element, with the file offset reached so far (for progress lines).
        case element(Prepared<Row>, bytesRead: Int)
        /// The file's structure is broken at this point; what came before was delivered.
        case stopped(ResultsReaderError)
    }

    static var chunkSize: Int { 512 }
    /// Elements read ahead by default: enough for the consumer never to wait while it writes
    /// one row at a time.
    static var defaultReadAhead: Int { 8 * chunkSize }

    private let queue: ChunkQueue<Item>
    private var current: [Item] = []
    private var index = 0
    private var ended = false

    /// Starts reading `reader` on a new thread. From here on only that thread uses `reader`.
    /// `readAhead`: how many elements it may prepare before the consumer takes them.
    init(reader: ResultsReader, maxObjectBytes: Int, readAhead: Int = defaultReadAhead, map: @escaping @Sendable (ParseFields) -> Mapped<Row>) {
        let queue = ChunkQueue<Item>(capacity: max(1, (readAhead + Self.chunkSize - 1) / Self.chunkSize))
        self.queue = queue
        // The reader is handed over whole: the calling thread keeps no reference it uses.
        let handOver = UncheckedSendable(reader)
        let thread = Thread {
            Self.produce(reader: handOver.value, maxObjectBytes: maxObjectBytes, map: map, into: queue)
        }
        thread.name = "pacenote.import.read"
        thread.start()
    }

    deinit { queue.cancel() }

    /// The next element in file order; nil after the last one (or after `.stopped`).
    func next() -> Item? {
        while index == current.count {
            guard !ended, let chunk = queue.pop() else { ended = true; return nil }
            current = chunk
            index = 0
        }
        defer { index += 1 }
        return current[index]
    }

    /// Stops the reading thread and waits until it has let go of the reader.
    func cancel() {
        ended = true
        current = []
        index = 0
        queue.cancel()
    }

    private static func produce(reader: ResultsReader, maxObjectBytes: Int, map: (ParseFields) -> Mapped<Row>, into queue: ChunkQueue<Item>) {
        defer { queue.finish() }
        var chunk: [Item] = []
        chunk.reserveCapacity(chunkSize)
        while true {
            let element: ResultsReader.Element?
            do {
                element = try reader.next()
            } catch {
                chunk.append(.stopped(error))
                _ = queue.push(chunk)
                return
            }
            guard let element else { break }
            chunk.append(.element(prepare(element, maxObjectBytes: maxObjectBytes, map: map), bytesRead: reader.bytesRead))
            if chunk.count == chunkSize {
                guard queue.push(chunk) else { return }
                chunk = []
                chunk.reserveCapacity(chunkSize)
            }
        }
        if !chunk.isEmpty { _ = queue.push(chunk) }
    }

    /// What becomes of one element, without the database.
    static func prepare(_ element: ResultsReader.Element, maxObjectBytes: Int, map: (ParseFields) -> Mapped<Row>) -> Prepared<Row> {
        switch element {
        case .value(.object(let members)):
            let fields = ParseFields(members)
            let id = fields.objectId.map(ParseFields.reportable) ?? "?"
            switch map(fields) {
            case .row(let row, let notes): return .row(row, objectId: id, notes: notes)
            case .skip(let reason): return .skip(objectId: id, reason: reason)
            }
        case .value:
            return .skip(objectId: "?", reason: "element is not an object")
        case .oversized(let offset, let bytes, let objectId):
            return .skip(objectId: objectId.map(ParseFields.reportable) ?? "?", reason: "object of \(bytes) bytes at byte \(offset) is over the \(maxObjectBytes)-byte limit")
        case .invalid(let offset, let error, let objectId):
            return .skip(objectId: objectId.map(ParseFields.reportable) ?? "?", reason: "malformed object at byte \(offset): \(error.reason)")
        }
    }
}

/// A FIFO of chunks between one producer and one consumer thread, holding at most
/// `capacity` chunks: the producer waits when it is full, the consumer when it is empty.
final class ChunkQueue<Element>: @unchecked Sendable {
    // @unchecked: `chunks`, `finished` and `cancelled` are only touched while `condition` is locked.
    private let condition = NSCondition()
    private let capacity: Int
    /// The chunks waiting, oldest first: never more than `capacity`, so taking the first costs
    /// little. (Taken chunks used to stay in the array, behind a head index, until it emptied;
    /// with a consumer slower than its producer it never did, and every chunk of a file stayed
    /// in memory: 300 MB on the large export into PostgreSQL.)
    private var chunks: [[Element]] = []
    private var finished = false
    private var cancelled = false

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// Producer: waits for room; false when the consumer has cancelled (stop producing).
    func push(_ chunk: [Element]) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while chunks.count >= capacity && !cancelled { condition.wait() }
        if cancelled { return false }
        chunks.append(chunk)
        condition.broadcast()
        return true
    }

    /// Producer: no more chunks will come. Called exactly once, when the producer is done with its input.
    func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Consumer: the next chunk, waiting for one; nil once the producer finished and all were taken.
    func pop() -> [Element]? {
        condition.lock()
        defer { condition.unlock() }
        while chunks.isEmpty && !finished && !cancelled { condition.wait() }
        guard !chunks.isEmpty, !cancelled else { return nil }
        let chunk = chunks.removeFirst()
        condition.broadcast()
        return chunk
    }

    /// Consumer: drops what waits, wakes the producer so it stops, and returns once it has finished.
    func cancel() {
        condition.lock()
        cancelled = true
        chunks.removeAll()
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }
}

/// Moves a value that is not Sendable to another thread that becomes its only user.
struct UncheckedSendable<Value>: @unchecked Sendable {
    // @unchecked: the sender stops using `value` once it is handed over (see each use).
    let value: Value
    init(_ value: Value) { self.value = value }
}
