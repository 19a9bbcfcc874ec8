/// The per-request upload state machine, a pure value: the glue feeds it what libmicrohttpd
/// reports and performs the action it returns (postgres-nio's state-machine style).
///
/// libmicrohttpd calls the access handler once with only the headers, then once per chunk of
/// body, then once with no data when the body is complete. Answering on the first call turns
/// keep-alive off, so a normal request is answered only on the last call.
struct UploadState {
    enum Phase {
        /// Headers seen, nothing decided. Can transition to: readingBody, responded.
        case awaitingFirstCall
        /// Collecting the body. Can transition to: readingBody, discarding, processing, responded.
        case readingBody
        /// The body grew past the limit; the rest is thrown away and the refusal (413) answered
        /// at the end. Can transition to: responded.
        case discarding(APIError)
        /// Body complete and handed to the responder (inline or offloaded, connection
        /// suspended). Can transition to: ready, responded.
        case processing
        /// An offloaded response waiting for the resumed connection's next call.
        /// Can transition to: responded.
        case ready(Response)
        /// A response was queued. Terminal.
        case responded
    }

    enum Action: Equatable {
        /// Return YES and wait for more calls.
        case continueReading
        /// Queue this response now.
        case queue(Response)
        /// Refuse the request before routing: the responder renders the refusal for the path
        /// (`HTTPResponder.rejection`: the Parse facade answers its prefixes in Parse's format).
        case reject(APIError)
        /// The body is complete: route the request.
        case process
        /// Give up on the connection (return NO): nothing sensible to answer.
        case close

        static func == (lhs: Action, rhs: Action) -> Bool {
            switch (lhs, rhs) {
            case (.continueReading, .continueReading), (.process, .process), (.close, .close): return true
            case let (.queue(a), .queue(b)): return a == b
            case let (.reject(a), .reject(b)): return a.status == b.status && a.code == b.code && a.message == b.message
            default: return false
            }
        }
    }

    private(set) var phase: Phase = .awaitingFirstCall
    private(set) var body: [UInt8] = []
    private var discarded = 0
    let maxBodyBytes: Int
    let maxHeaderBytes: Int

    init(maxBodyBytes: Int, maxHeaderBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
        self.maxHeaderBytes = maxHeaderBytes
    }

    /// First call: check sizes the client declared before reading anything. `refusal` is the
    /// answer `HeadFraming` chose for the head's framing, if any; it comes after the URL and
    /// size checks.
    mutating func begin(
        requestLineBytes: Int, headerBytes: Int, contentLength: String?, malformedURL: Bool = false, refusal framing: APIError? = nil
    ) -> Action {
        guard case .awaitingFirstCall = phase else { return .close }
        var rejection: APIError?
        if malformedURL {
            rejection = .badRequest("The URL has a NUL byte, a broken %-escape or bytes that are not UTF-8.")
        } else if requestLineBytes > maxHeaderBytes {
            rejection = APIError(status: 414, code: "bad_request", message: "Request line is too long.")
        } else if headerBytes > maxHeaderBytes {
            rejection = APIError(status: 431, code: "bad_request", message: "Request headers are too large.")
        } else if let framing {
            rejection = framing
        } else if let contentLength {
            let trimmed = contentLength.trimmingASCIIWhitespace()
            if let declared = UInt64(trimmed), !trimmed.isEmpty {
                if declared > UInt64(maxBodyBytes) {
                    rejection = .payloadTooLarge()
                } else {
                    body.reserveCapacity(Int(declared))
                }
            } else {
                rejection = .badRequest("Malformed Content-Length.")
            }
        }
        if let rejection {
            phase = .responded
            return .reject(rejection)
        }
        phase = .readingBody
        return .continueReading
    }

    /// A chunk of body arrived (the caller then marks it consumed).
    mutating func receive(_ chunk: UnsafeRawBufferPointer) -> Action {
        switch phase {
        case .readingBody:
            if body.count + chunk.count > maxBodyBytes {
                discarded = body.count + chunk.count
                body = []
                phase = .discarding(APIError.payloadTooLarge())
                return .continueReading
            }
            body.append(contentsOf: chunk)
            return .continueReading
        case .discarding:
            discarded += chunk.count
            // A chunked body that never ends must not hold the connection forever.
            return discarded > maxBodyBytes * 16 ? .close : .continueReading
        default:
            return .close
        }
    }

    /// The call with no data after the body: route it, or answer the pending rejection.
    mutating func uploadFinished() -> Action {
        switch phase {
        case .readingBody:
            phase = .processing
            return .process
        case .discarding(let refusal):
            phase = .responded
            return .reject(refusal)
        case .ready(let response):
            phase = .responded
            return .queue(response)
        case .processing:
            // Resumed without a response: cannot happen unless resume raced; keep waiting.
            return .continueReading
        case .awaitingFirstCall, .responded:
            return .close
        }
    }

    /// The responder answered (inline or on the offload pool).
    mutating func complete(_ response: Response) {
        if case .processing = phase { phase = .ready(response) }
    }

    /// Marks an inline response as queued.
    mutating func markResponded() { phase = .responded }
}

extension Response: Equatable {
    public static func == (lhs: Response, rhs: Response) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body && (lhs.stream == nil) == (rhs.stream == nil)
            && lhs.headers.map { [$0.0, $0.1] } == rhs.headers.map { [$0.0, $0.1] }
    }
}

extension String {
    func trimmingASCIIWhitespace() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return String(s)
    }
}
