import CMicroHTTPD
import Synchronization
import Telemetry

#if canImport(Glibc)
import Glibc
#endif

// The C callbacks libmicrohttpd calls on its own threads. They are top-level functions that
// capture nothing (never closures in main.swift, see SWIFT-LINUX-NOTES); context travels in
// the `cls` pointers.
//
// What libmicrohttpd 0.9.75 answers itself, before our handler sees the request (so without
// the JSON envelope):
// - a request line or header block larger than the per-connection memory pool
//   (MHD_OPTION_CONNECTION_MEMORY_LIMIT, 4 x maxHeaderBytes = 64 KiB by default): 414/431 with
//   MHD's own small HTML body. Between maxHeaderBytes and that pool size we see the request
//   and answer 414/431 with the envelope.
// - a malformed Content-Length ("abc", "-5", "4, 4", "0x4"), one past 64 bits, a Cookie the
//   pool cannot copy: MHD would queue its own page and send its head twice; we answer first,
//   once, from its log line (ServerCore+EarlyRefusals), and it sends nothing.
// - a request line MHD cannot parse ("GARBAGE"): connection closed without an answer, unless
//   it arrived with the connection's first bytes: the head screen in mhdConnectionNotify
//   answers a NUL (which MHD would skip as an empty line, and wait) or a line without three
//   parts with 400 first (see RequestHeadScreen).
// - a malformed header line or chunk framing: 400 from MHD or a closed connection.
// - a Content-Length that lies: too short leaves extra bytes that MHD parses as the next
//   request (garbage there closes the connection); too long waits for the rest until the
//   connection timeout (connectionTimeoutSeconds).
// What MHD accepts but a proxy in front may frame differently is refused by us, with the
// envelope and the connection closed: obs-fold and bare CRs in a connection's first bytes
// (RequestHeadScreen; MHD rewrites both before we see the fields), and on every request
// Content-Length beside Transfer-Encoding or differing Content-Lengths, a transfer coding other
// than chunked (501), whitespace before a field's colon, no Host on HTTP/1.1 or two (HeadFraming).

/// Per-request state, created on the first access-handler call.
final class RequestBox: Sendable {
    /// Method, path, query and headers; the body is collected in `upload`.
    let head: Request
    let upload: Mutex<UploadState>
    /// The slot of `ServerCore.largeBodies` the request holds, given back on completion.
    let lease: LargeBodySlots.Lease?
    /// The connection whose deadline the request's large body is under (`HeadDeadlines`);
    /// nil for other requests.
    let bodyDeadline: ConnectionRecord?

    init(head: Request, upload: UploadState, lease: LargeBodySlots.Lease? = nil, bodyDeadline: ConnectionRecord? = nil) {
        self.head = head
        self.upload = Mutex(upload)
        self.lease = lease
        self.bodyDeadline = bodyDeadline
    }
}

/// A connection pointer handed to an offload job. @unchecked Sendable: MHD_resume_connection
/// is documented as callable from any thread, and the connection stays alive while suspended
/// (the server drains the offload pool before MHD_stop_daemon).
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// Turns an MHD_Result into a typed error naming the C function.
func mhdCheck(_ result: MHD_Result, _ function: String) throws(HTTPServerError) {
    if result != .YES { throw HTTPServerError(function: function, errno: 0) }
}

func mhdAccessHandler(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ uploadData: UnsafePointer<CChar>?,
    _ uploadDataSize: UnsafeMutablePointer<Int>?, _ conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let conCls, let uploadDataSize else { return .NO }
    // Unmanaged: the server keeps `core` alive until after MHD_stop_daemon.
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()

    guard let existing = conCls.pointee else {
        // The head is complete. Too late if the deadline (or the head screen) already took
        // the connection: its socket is shut down, and MHD closes it on .NO.
        let record = ConnectionInfo.socketContext(of: connection).map { Unmanaged<ConnectionRecord>.fromOpaque($0).takeUnretainedValue() }
        if let record, !record.headArrived() { return .NO }
        return core.firstCall(connection: connection, record: record, url: url, method: method, version: version, conCls: conCls)
    }
    // Unmanaged: retained in firstCall, released only in mhdCompletedCallback, which runs after
    // the last access-handler call of this request.
    let box = Unmanaged<RequestBox>.fromOpaque(existing).takeUnretainedValue()

    if uploadDataSize.pointee > 0 {
        let chunk = UnsafeRawBufferPointer(start: uploadData, count: uploadDataSize.pointee)
        let action = box.upload.withLock { $0.receive(chunk) }
        uploadDataSize.pointee = 0  // consumed (kept, or discarded past the limit)
        return core.perform(action, box: box, connection: connection)
    }
    // The body has ended: before anything is queued, take the connection back from the body
    // deadline, unless the sweep took it first and wrote its 408 (MHD must then write nothing).
    if let record = box.bodyDeadline, !record.bodyArrived() { return .NO }
    let action = box.upload.withLock { $0.uploadFinished() }
    return core.perform(action, box: box, connection: connection)
}

func mhdCompletedCallback(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ code: MHD_RequestTerminationCode
) {
    guard let cls, let conCls, let raw = conCls.pointee else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    // Unmanaged: balances the passRetained in firstCall. MHD calls this once per request whose
    // handler ran, and clearing the slot makes a second release impossible.
    let box = Unmanaged<RequestBox>.fromOpaque(raw)
    // Completed or aborted alike: the slot and the holder's count come back here only.
    if let lease = box.takeUnretainedValue().lease { core.largeBodies.release(lease) }
    box.release()
    conCls.pointee = nil
    core.inFlight.subtract(1, ordering: .releasing)
    // On a kept-alive connection the next request head is due a deadline after this one ended.
    if let connection, let record = ConnectionInfo.socketContext(of: connection) {
        Unmanaged<ConnectionRecord>.fromOpaque(record).takeUnretainedValue().awaitHead(since: monotonicMillis())
    }
    if code != .REQUEST_TERMINATED_COMPLETED_OK {
        core.logger.debug("request ended early", ["termination_code": String(code.rawValue)])
    }
}

/// MHD_OPTION_UNESCAPE_CALLBACK: leaves `%XX` escapes in place (answers the unchanged
/// length), so that `PercentDecoding` decodes them in Swift, where a `%00` can be refused
/// instead of truncating a C string.
func mhdKeepEscaped(_ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ text: UnsafeMutablePointer<CChar>?) -> Int {
    text.map { strlen($0) } ?? 0
}

/// MHD's diagnostics (MHD_USE_ERROR_LOG through MHD_OPTION_EXTERNAL_LOGGER), formatted and
/// sent to our logger at warning level. Rate-limited per call site (the format string is a
/// constant of MHD's, so there are few keys): a client can make MHD write one per connection
/// ("Server reached connection limit"), and a flood of them must not fill the disk.
func mhdLogCallback(_ cls: UnsafeMutableRawPointer?, _ format: UnsafePointer<CChar>?, _ args: CVaListPointer?) {
    guard let cls, let format, let args else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    // MHD logs this when it answers a request itself; see ServerCore+EarlyRefusals.
    if strstr(format, "Error processing request") != nil { core.answerRefusalBeforeMHD() }
    let kind = "mhd:" + String(UInt(bitPattern: format), radix: 16)
    var buffer = [CChar](repeating: 0, count: 512)
    _ = vsnprintf(&buffer, buffer.count, format, args)
    buffer[buffer.count - 1] = 0
    let message = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    core.floodLog.warning(kind: kind, "libmicrohttpd", ["detail": message.trimmingCharacters(in: "\n")])
}

/// MHD_OPTION_NOTIFY_CONNECTION: a TCP connection was accepted (STARTED, on the serving thread
/// that will own it, before MHD reads from it) or is about to be closed (CLOSED, before MHD
/// closes its socket).
///
/// On STARTED it screens the bytes already received (RequestHeadScreen) and gives the
/// connection a request-head deadline (HeadDeadlines). Unmanaged: the record is retained into
/// MHD's `socket_context` slot here and released exactly once, on CLOSED, which clears the slot.
func mhdConnectionNotify(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ code: MHD_ConnectionNotificationCode
) {
    guard let cls, let connection, let socketContext else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    switch code {
    case .CONNECTION_NOTIFY_STARTED:
        let socket = ConnectionInfo.socket(of: connection)
        guard socket >= 0 else { return }
        let record = ConnectionRecord(socket: socket, waitingSince: monotonicMillis(), remoteAddress: ConnectionInfo.clientAddress(of: socket),
                                      connection: ConnectionHandle(pointer: connection), owner: pthread_self())
        socketContext.pointee = Unmanaged.passRetained(record).toOpaque()
        core.deadlines.register(record)
        core.screenFirstBytes(of: record)
    case .CONNECTION_NOTIFY_CLOSED:
        guard let raw = socketContext.pointee else { return }
        let record = Unmanaged<ConnectionRecord>.fromOpaque(raw).takeRetainedValue()
        socketContext.pointee = nil
        core.deadlines.unregister(record)
    @unknown default:
        return
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.last == set { s.removeLast() }
        return String(s)
    }
}

/// Collects key/value pairs from MHD_get_connection_values into a Swift array.
func mhdCollectPairs(
    _ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls else { return .NO }
    let pairs = cls.assumingMemoryBound(to: [(String, String)].self)
    pairs.pointee.append((key.map { String(cString: $0) } ?? "", value.map { String(cString: $0) } ?? ""))
    return .YES
}

extension ServerCore {
    func connectionValues(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [(String, String)] {
        var pairs: [(String, String)] = []
        withUnsafeMutablePointer(to: &pairs) { pointer in
            _ = MHD_get_connection_values(connection, kind, mhdCollectPairs, UnsafeMutableRawPointer(pointer))
        }
        return pairs
    }

    func firstCall(
        connection: OpaquePointer, record: ConnectionRecord?, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
        version: UnsafePointer<CChar>?, conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        let methodString = method.map { String(cString: $0) } ?? ""
        // MHD hands us the path without the query string, still percent-encoded (see
        // mhdKeepEscaped); query arguments come split, with '+' already turned into a space.
        let rawPath = url.map { String(cString: $0) } ?? "/"
        let headers = connectionValues(connection, .HEADER_KIND)
        let arguments = connectionValues(connection, .GET_ARGUMENT_KIND)
        var malformedURL = false
        let path = PercentDecoding.decode(rawPath) ?? { malformedURL = true; return rawPath }()
        var query: [String: String] = [:]
        for (k, v) in arguments {
            guard let key = PercentDecoding.decode(k), let value = PercentDecoding.decode(v) else {
                malformedURL = true
                continue
            }
            query[key] = value  // last value wins
        }

        // Sizes as the client sent them, approximately: decoding only shrinks the URL, so this
        // never over-counts. "METHOD SP URL SP VERSION".
        let versionLength = version.map { strlen($0) } ?? 8
        var requestLineBytes = methodString.utf8.count + path.utf8.count + versionLength + 2
        for (k, v) in arguments { requestLineBytes += k.utf8.count + v.utf8.count + 2 }
        var headerBytes = 0
        for (k, v) in headers { headerBytes += k.utf8.count + v.utf8.count + 4 }  // "k: v\r\n"

        let head = Request(method: methodString, path: path, query: query, headers: HTTPHeaders(headers),
                           remoteAddress: record?.remoteAddress ?? ConnectionInfo.clientAddress(of: connection))
        let maxBodyBytes = responder.maxBodyBytes(for: head) ?? configuration.maxBodyBytes
        var upload = UploadState(maxBodyBytes: maxBodyBytes, maxHeaderBytes: configuration.maxHeaderBytes)
        // Smuggling shapes in the parsed fields (differing Content-Lengths, Content-Length beside
        // Transfer-Encoding, an unknown transfer coding, whitespace before a colon, no Host or
        // two): refused on this first call, which makes MHD close the connection after the answer.
        let framing = HeadFraming(headers: headers, version: version.map { String(cString: $0) } ?? "")
        var action = upload.begin(requestLineBytes: requestLineBytes, headerBytes: headerBytes, contentLength: framing.contentLength,
                                  malformedURL: malformedURL, refusal: framing.refusal)
        // A route may read a larger body than the server's limit (an image upload). Such a body
        // is let in only from a caller the head check admits, within the caller's and the
        // server's slots, and under a deadline; else it is refused before a byte of it is read.
        var lease: LargeBodySlots.Lease?
        if maxBodyBytes > configuration.maxBodyBytes, case .continueReading = action {
            switch admitLargeBody(head) {
            case .success(let taken):
                lease = taken
                record?.awaitBody(since: monotonicMillis())
            case .failure(let refusal):
                upload.markResponded()
                action = refusal.action
            }
        }
        let box = RequestBox(head: head, upload: upload, lease: lease, bodyDeadline: lease == nil ? nil : record)
        // Unmanaged: retained here for the life of the request; released exactly once in
        // mhdCompletedCallback (MHD_OPTION_NOTIFY_COMPLETED).
        conCls.pointee = Unmanaged.passRetained(box).toOpaque()
        inFlight.add(1, ordering: .relaxed)
        return perform(action, box: box, connection: connection)
    }

    func perform(_ action: UploadState.Action, box: RequestBox, connection: OpaquePointer) -> MHD_Result {
        switch action {
        case .continueReading:
            return .YES
        case .close:
            return .NO
        case .reject(let refusal):
            return perform(.queue(responder.rejection(refusal, for: box.head)), box: box, connection: connection)
        case .queue(var response):
            if response.status >= 400 && response.header("X-Request-Id") == nil {
                // Answers made here (limits) never reach the responder; give them an id too.
                requestsRejected.increment()
                response.headers.append(("X-Request-Id", makeRequestID()))
            }
            return queue(response, on: connection)
        case .process:
            return process(box: box, connection: connection)
        }
    }

    func process(box: RequestBox, connection: OpaquePointer) -> MHD_Result {
        var request = box.head
        request.body = box.upload.withLock { $0.body }
        guard let kind = responder.workerPool(for: request) else {
            let response = responder.respond(to: request)
            box.upload.withLock { $0.markResponded() }
            return queue(response, on: connection)
        }
        // Suspend before submitting, so the job's resume can never precede the suspend.
        MHD_suspend_connection(connection)
        let handle = ConnectionHandle(pointer: connection)
        let responder = self.responder
        let offloaded = request
        let pool = switch kind {
        case .offload: offloadPool
        case .blocking: blockingPool
        case .media: mediaPool
        }
        let abandoned = self.abandoned
        let accepted = pool.trySubmit {
            // A client that gave up while the request queued (a login flood's clients timing
            // out, a load generator stopping) gets no bcrypt and no write done for nobody: the
            // work it asked for would only delay everyone still waiting. Nothing has started,
            // so nothing is half done; MHD finds the connection closed when it sends.
            let response: Response
            if Self.clientHasLeft(handle.pointer) {
                abandoned.increment()
                response = Response(status: 499)
            } else {
                response = responder.respond(to: offloaded)
            }
            box.upload.withLock { $0.complete(response) }
            MHD_resume_connection(handle.pointer)
        }
        if !accepted {
            offloadRejected.increment()
            var busy = APIError.overloaded().response
            busy.headers.append(("X-Request-Id", makeRequestID()))
            box.upload.withLock { $0.complete(busy) }
            MHD_resume_connection(connection)
        }
        // The response is queued on the call MHD makes after the resume (uploadFinished -> ready).
        return .YES
    }

    func queue(_ response: Response, on connection: OpaquePointer) -> MHD_Result {
        let created: OpaquePointer?
        if let stream = response.stream {
            created = streamedResponse(stream, on: connection, requestID: response.header("X-Request-Id") ?? "")
        } else {
            created = response.body.withUnsafeBytes { bytes in
                // MUST_COPY: MHD copies the bytes, so the Swift array may go away at once.
                MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
            }
        }
        guard let mhdResponse = created else {
            logger.error("cannot build response", ["function": response.stream == nil ? "MHD_create_response_from_buffer" : "MHD_create_response_from_callback"])
            return .NO
        }
        defer { MHD_destroy_response(mhdResponse) }
        // Every answer with a body (API.md): here, where every response is queued, so no route
        // or refusal can go without it; skipped where a route already set it (its page headers).
        if (!response.body.isEmpty || response.stream != nil || response.header("Content-Type") != nil)
            && response.header("X-Content-Type-Options") == nil {
            _ = MHD_add_response_header(mhdResponse, "X-Content-Type-Options", "nosniff")
        }
        for (name, value) in response.headers {
            do throws(HTTPServerError) {
                try mhdCheck(MHD_add_response_header(mhdResponse, name, value), "MHD_add_response_header")
            } catch {
                // MHD refuses names/values with CR/LF or a Content-Length it manages itself.
                logger.warning("response header refused", ["function": error.function, "header": name])
            }
        }
        do throws(HTTPServerError) {
            try mhdCheck(MHD_queue_response(connection, UInt32(response.status), mhdResponse), "MHD_queue_response")
            return .YES
        } catch {
            logger.error("cannot queue response", ["function": error.function, "status": String(response.status)])
            return .NO
        }
    }
}

extension ServerCore {
    /// The block size MHD is given for a streamed response: advisory, and in chunked encoding
    /// (every HTTP/1.1 client) MHD reads into the connection's own write buffer, a part of its
    /// memory pool (`maxHeaderBytes` x 4), instead.
    static let streamBlockBytes = 32 * 1024

    /// An MHD response of unknown size whose body `stream` makes (`StreamedBody`); MHD sends it
    /// chunked. Nil when MHD cannot make one (the producer is then told it was abandoned).
    func streamedResponse(_ stream: ResponseStream, on connection: OpaquePointer, requestID: String) -> OpaquePointer? {
        let body = StreamedBody(producer: stream.producer, connection: connection, core: self, requestID: requestID)
        // Unmanaged: retained for MHD, released exactly once in mhdStreamFree, which MHD calls when
        // the response is destroyed (after the connection's last read of it, or at once when
        // queueing fails and `queue` destroys it).
        let context = Unmanaged.passRetained(body).toOpaque()
        guard let created = MHD_create_response_from_callback(UInt64.max,  // MHD_SIZE_UNKNOWN
                                                               Self.streamBlockBytes, mhdStreamReader, context, mhdStreamFree) else {
            Unmanaged<StreamedBody>.fromOpaque(context).takeRetainedValue().finish()
            return nil
        }
        return created
    }
}
