import CMicroHTTPD
import Synchronization
import Telemetry

#if canImport(Glibc)
import Glibc
#endif

/// A streamed response (`Response.stream`) on its way out: the context (`crc_cls`) of the
/// content-reader callbacks libmicrohttpd calls on its serving threads.
///
/// How a body goes out: MHD calls `mhdStreamReader` whenever the socket can take more. While
/// the current part has bytes left, the call copies them (at most what MHD asks for) and
/// returns at once. When the part is used up, the call suspends the connection, hands
/// `produce()` to the blocking pool and returns 0 (MHD's documented way to wait without
/// spinning); the pool thread checks the client is still there, runs the producer's
/// `next(into:)` (one bounded database page), stores the part and resumes the connection, and
/// MHD's next call copies it. So a serving thread never waits for the database, at most one
/// part per response is in memory, and a part is only made once the previous one is in the
/// socket (a slow client slows its producer, nothing piles up).
///
/// The end: the producer's last part, then `END_OF_STREAM` (MHD writes the chunked body's
/// last chunk, the connection may be kept alive); a thrown error or a refused job,
/// `END_WITH_ERROR` (MHD closes the connection without the last chunk: the client sees an
/// incomplete body). A client that left is noticed before each part (`clientHasLeft`: a
/// suspended connection's close is invisible to MHD), or by MHD when a send fails; either way
/// no further part is made. MHD calls `mhdStreamFree` once the response is done with, however
/// it ended, which tells the producer how (`ResponseStreamEnd`).
final class StreamedBody: Sendable {
    struct State {
        var part: [UInt8] = []
        /// Bytes of `part` already given to MHD.
        var sent = 0
        /// Whether the producer said more follows `part`.
        var more = true
        var failure: (any Error)?
        /// The client was gone when the next part was due.
        var clientLeft = false
    }

    let producer: Mutex<any ResponseStreamProducer>
    let state = Mutex(State())
    let connection: ConnectionHandle
    /// Unowned in effect: the server keeps `core` alive until after MHD_stop_daemon, which
    /// frees every response first.
    let core: ServerCore
    /// The request's id (`X-Request-Id`), for the log line of a stream that failed.
    let requestID: String

    init(producer: any ResponseStreamProducer, connection: OpaquePointer, core: ServerCore, requestID: String) {
        self.producer = Mutex(producer)
        self.connection = ConnectionHandle(pointer: connection)
        self.core = core
        self.requestID = requestID
    }

    private enum Step {
        case copied(Int)
        case produce
        case end
        case error
    }

    /// MHD asks for up to `max` bytes at `buffer` (on a serving thread).
    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        let step: Step = state.withLock { s in
            if s.sent < s.part.count {
                let count = min(max, s.part.count - s.sent)
                s.part.withUnsafeBytes { bytes in
                    UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + s.sent, byteCount: count)
                }
                s.sent += count
                return .copied(count)
            }
            if s.failure != nil || s.clientLeft { return .error }
            return s.more ? .produce : .end
        }
        switch step {
        case .copied(let count):
            return count
        case .end:
            return contentReaderEndOfStream
        case .error:
            return contentReaderEndWithError
        case .produce:
            // Suspend before submitting, so the job's resume can never precede the suspend.
            MHD_suspend_connection(connection.pointer)
            if !core.blockingPool.trySubmit({ self.produce() }) {
                // The pool is closed (the server is stopping): end here. MHD calls again after
                // the resume and finds the failure.
                state.withLock { $0.failure = StreamRefused() }
                MHD_resume_connection(connection.pointer)
            }
            return 0
        }
    }

    /// Makes the next part (on a blocking-pool thread, the connection suspended).
    func produce() {
        defer { MHD_resume_connection(connection.pointer) }
        if ServerCore.clientHasLeft(connection.pointer) {
            state.withLock { $0.clientLeft = true }
            return
        }
        var part: [UInt8] = []
        state.withLock { swap(&part, &$0.part) }
        part.removeAll(keepingCapacity: true)
        do {
            let more = try producer.withLock { try $0.next(into: &part) }
            state.withLock { s in
                swap(&part, &s.part)
                s.sent = 0
                s.more = more
            }
        } catch {
            state.withLock { $0.failure = error }
        }
    }

    /// MHD is done with the response (MHD_ContentReaderFreeCallback): tell the producer how it ended.
    func finish() {
        let end: ResponseStreamEnd = state.withLock { s in
            if let failure = s.failure { return .failed(failure) }
            if !s.more && s.sent == s.part.count && !s.clientLeft { return .completed }
            return .abandoned
        }
        switch end {
        case .completed:
            core.streams.completed.increment()
        case .abandoned:
            core.streams.abandoned.increment()
            core.logger.info("streamed response abandoned", ["request_id": requestID])
        case .failed(let error):
            core.streams.failed.increment()
            let errorType = String(reflecting: type(of: error))
            // As for a 500 (`errorResponse`): only a description known to hold no secret.
            if let safe = error as? any SafelyDescribedError {
                core.logger.error("streamed response cut short", ["request_id": requestID, "error_type": errorType, "error": safe.description])
            } else {
                core.logger.error("streamed response cut short", ["request_id": requestID, "error_type": errorType])
            }
        }
        producer.withLock { $0.finish(end) }
    }
}

/// MHD_CONTENT_READER_END_OF_STREAM and MHD_CONTENT_READER_END_WITH_ERROR: cast macros
/// (`((ssize_t) -1)`), which Swift does not import.
let contentReaderEndOfStream = -1
let contentReaderEndWithError = -2

/// No pool thread would take a streamed body's next part (the server is stopping).
struct StreamRefused: Error {}

/// `pacenote_http_streams_total{end}`: streamed responses by how they ended.
struct StreamCounters: Sendable {
    let completed: Counter
    let abandoned: Counter
    let failed: Counter

    init(metrics: MetricsRegistry) {
        let help = "Streamed responses (data exports) by how they ended: completed, abandoned (the client left), failed (cut short)."
        completed = metrics.counter("pacenote_http_streams_total", help: help, labels: [("end", "completed")])
        abandoned = metrics.counter("pacenote_http_streams_total", help: help, labels: [("end", "abandoned")])
        failed = metrics.counter("pacenote_http_streams_total", help: help, labels: [("end", "failed")])
    }
}

/// MHD_ContentReaderCallback of a streamed response; `cls` is its `StreamedBody`.
func mhdStreamReader(_ cls: UnsafeMutableRawPointer?, _ position: UInt64, _ buffer: UnsafeMutablePointer<CChar>?, _ max: Int) -> Int {
    guard let cls, let buffer else { return contentReaderEndWithError }
    // Unmanaged: retained in `queueStreamed`, released only in mhdStreamFree, after MHD's last read.
    return Unmanaged<StreamedBody>.fromOpaque(cls).takeUnretainedValue().read(into: buffer, max: max)
}

/// MHD_ContentReaderFreeCallback: the response is destroyed; balances the retain of `queueStreamed`.
func mhdStreamFree(_ cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    Unmanaged<StreamedBody>.fromOpaque(cls).takeRetainedValue().finish()
}
