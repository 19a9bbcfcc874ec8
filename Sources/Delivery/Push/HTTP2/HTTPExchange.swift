/// One POST for `HTTP2Client`.
struct HTTPRequest: Sendable {
    var url: String
    /// Header fields in order; a name or value holding CR or LF is not sent (they are built from
    /// message fields, and a line break would let one add headers).
    var headers: [(name: String, value: String)]
    var body: [UInt8]
}

/// A response as the service sent it: status, header fields (names lower-cased; a repeated field
/// keeps its last value) and body.
struct HTTPResponse: Sendable, Equatable {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
}

/// A transfer that ended without a response: DNS, connection, TLS, timeout. `message` is
/// libcurl's text for `code` (`curl_easy_strerror`), which names no secret.
struct TransportError: Error, Sendable, Equatable {
    var function: String
    var code: Int
    var message: String
}

/// The answer to one request.
typealias HTTPResult = Result<HTTPResponse, TransportError>
