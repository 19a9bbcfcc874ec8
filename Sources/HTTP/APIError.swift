import JSON

/// The one error type that chooses its own HTTP answer: the API.md envelope
/// `{"error":{"code":"…","message":"…","field":"…"}}` (`field` omitted when nil).
///
/// Any other error thrown by a handler or middleware becomes 500 `internal`, logged with the
/// request id and the error's type name, and with its description only when the error is a
/// `SafelyDescribedError` (such as `StorageError`): any other description may hold secrets.
public struct APIError: Error, Sendable, JSONEncodable {
    public let status: Int
    /// A snake_case code from API.md.
    public let code: String
    /// A human sentence the client may show.
    public let message: String
    /// The input field at fault, when exactly one is.
    public let field: String?
    /// Extra response headers, e.g. `Retry-After` or `Allow`.
    public var headers: [(String, String)]

    public init(status: Int, code: String, message: String, field: String? = nil) {
        self.init(status: status, code: code, message: message, field: field, headers: [])
    }

    public init(status: Int, code: String, message: String, field: String? = nil, headers: [(String, String)]) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.headers = headers
    }

    public func encode(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("error")
        writer.beginObject()
        writer.field("code", code)
        writer.field("message", message)
        if let field { writer.field("field", field) }
        writer.endObject()
        writer.endObject()
    }

    /// The envelope as a response, with `headers` added.
    public var response: Response {
        var r = Response.json(status, self)
        r.headers.append(contentsOf: headers)
        return r
    }

    /// 400 `bad_request`.
    public static func badRequest(_ message: String) -> APIError {
        APIError(status: 400, code: "bad_request", message: message)
    }

    /// 400 `validation_failed`, naming the field at fault.
    public static func validation(_ field: String?, _ message: String) -> APIError {
        APIError(status: 400, code: "validation_failed", message: message, field: field)
    }

    /// 404 `not_found`.
    public static func notFound(_ message: String = "Not found.") -> APIError {
        APIError(status: 404, code: "not_found", message: message)
    }

    /// 405 `method_not_allowed` with an `Allow` header listing `allowed`.
    public static func methodNotAllowed(allowed: [String]) -> APIError {
        APIError(
            status: 405, code: "method_not_allowed", message: "Method not allowed.",
            headers: [("Allow", allowed.joined(separator: ", "))])
    }

    /// 413 `payload_too_large`.
    public static func payloadTooLarge() -> APIError {
        APIError(status: 413, code: "payload_too_large", message: "Request body is too large.")
    }

    /// 408 `request_timeout`: a large body did not arrive within `bodyTimeoutMillis` of its head.
    public static func requestTimeout() -> APIError {
        APIError(status: 408, code: "request_timeout", message: "The request body did not arrive in time.")
    }

    /// 429 `rate_limited` with `Retry-After`: the caller already has as many large bodies in
    /// flight as one may (`ServerConfiguration.maxLargeBodiesPerHolder`).
    public static func tooManyBodies(retryAfterSeconds: Int = 1) -> APIError {
        APIError(
            status: 429, code: "rate_limited", message: "Wait for your other uploads to finish, then try again.",
            headers: [("Retry-After", String(retryAfterSeconds))])
    }

    /// 503 `unavailable` with `Retry-After`, used when the offload queue is full: the server's
    /// state, not the client's doing (API.md keeps `rate_limited` for 429, a client over its limit).
    public static func overloaded(retryAfterSeconds: Int = 1) -> APIError {
        APIError(
            status: 503, code: "unavailable", message: "The server is busy, try again shortly.",
            headers: [("Retry-After", String(retryAfterSeconds))])
    }

    /// 500 `internal` with a generic message.
    public static let internalError = APIError(status: 500, code: "internal", message: "Internal server error.")
}
