import JSON

/// Request or response header fields, in the order received.
public struct HTTPHeaders: Sendable {
    /// Every field as (name, value), duplicates kept, names as received.
    public var pairs: [(String, String)]

    public init(_ pairs: [(String, String)]) {
        self.pairs = pairs
    }

    /// The first value of the field `name`, compared case-insensitively (ASCII).
    public subscript(name: String) -> String? {
        for (k, v) in pairs where asciiCaseInsensitiveEquals(k, name) { return v }
        return nil
    }
}

func asciiCaseInsensitiveEquals(_ a: String, _ b: String) -> Bool {
    let x = a.utf8, y = b.utf8
    guard x.count == y.count else { return false }
    for (p, q) in zip(x, y) where p != q {
        // Fold ASCII letters only; header names are tokens.
        let lp = (p >= 0x41 && p <= 0x5A) ? p | 0x20 : p
        let lq = (q >= 0x41 && q <= 0x5A) ? q | 0x20 : q
        if lp != lq { return false }
    }
    return true
}

/// One HTTP request, fully read (the body is complete and within the size limit).
public struct Request: Sendable {
    /// The method as received, e.g. "GET" (not normalised: methods are case-sensitive).
    public var method: String
    /// The percent-decoded path, without the query string.
    public var path: String
    /// Percent-decoded query parameters ('+' is a space); the last value of a repeated name wins.
    public var query: [String: String]
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The peer's IP address as text (`127.0.0.1`, `::1`), from the socket; empty when unknown.
    /// Who the client is behind a proxy is the application's decision (`X-Forwarded-For`).
    public var remoteAddress: String

    public init(method: String, path: String, query: [String: String] = [:], headers: HTTPHeaders = .init([]), body: [UInt8] = [],
                remoteAddress: String = "") {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }
}

/// The answer to a request. `Content-Length` is added by the server; `X-Request-Id` by the responder.
public struct Response: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// A body made while it is sent (`Response.streamed`); when set, `body` is not sent.
    public var stream: ResponseStream?

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The JSON content type every JSON body carries.
    public static let jsonContentType = ("Content-Type", "application/json; charset=utf-8")

    /// A JSON response written by `value`.
    public static func json(_ status: Int = 200, _ value: some JSONEncodable) -> Response {
        var writer = JSONWriter()
        value.encode(to: &writer)
        return Response(status: status, headers: [jsonContentType], body: writer.bytes)
    }

    /// A 200 JSON response written by `value`. (Swift binds a lone unlabeled argument to the
    /// first parameter, so `json(value)` needs this overload beside `json(_:_:)`.)
    public static func json(_ value: some JSONEncodable) -> Response {
        json(200, value)
    }

    /// A JSON response with the bytes already in `writer`.
    public static func json(_ status: Int = 200, writer: JSONWriter) -> Response {
        Response(status: status, headers: [jsonContentType], body: writer.bytes)
    }

    /// 204 No Content.
    public static func noContent() -> Response {
        Response(status: 204)
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        HTTPHeaders(headers)[name]
    }
}
