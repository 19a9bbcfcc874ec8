import HTTP
import JSON

/// An answer in the Parse REST format: `{"code": N, "error": "message"}` with parse-server's
/// status for the code (PARSE-REST.md §1.6), or, for a missing or wrong application id,
/// 403 `{"error": "unauthorized"}` with no code, as parse-server answers it.
///
/// The status matters to the iOS SDK only for retrying: it retries any 5xx and any status
/// under 400 five times, so an answer to bad input is always a 4xx (PARSE-REST.md §0, point 3).
public struct ParseError: Error, Sendable, Equatable {
    /// The Parse error codes the facade answers with (Parse-SDK-JS `ParseError.js`).
    public enum Code: Int, Sendable {
        case internalServerError = 1
        case connectionFailed = 100
        case objectNotFound = 101
        case invalidQuery = 102
        case invalidClassName = 103
        case invalidKeyName = 105
        case invalidJSON = 107
        case incorrectType = 111
        case invalidChannelName = 112
        case objectTooLarge = 116
        case operationForbidden = 119
        case invalidEmailAddress = 125
        case duplicateValue = 137
        /// parse-server's raw 135: an installation without deviceType (or, here, deviceToken).
        case missingInstallationField = 135
        /// parse-server's raw 136: an installation's deviceType or deviceToken changed.
        case immutableInstallationField = 136
        case validationError = 142
        case usernameMissing = 200
        case passwordMissing = 201
        case usernameTaken = 202
        case emailTaken = 203
        case emailMissing = 204
        case sessionMissing = 206
        case invalidSessionToken = 209
        case unsupportedService = 252

        /// parse-server's `handleParseErrors`: 1 is 500, 101 is 404, a rate limit 429, and
        /// every other Parse error 400.
        var status: Int {
            switch self {
            case .internalServerError: 500
            case .objectNotFound: 404
            case .connectionFailed: 429
            default: 400
            }
        }
    }

    public let status: Int
    /// Nil only for the application-id refusal, which parse-server sends without one.
    public let code: Code?
    /// A sentence the app may show; never an input echoed back beyond a field or class name.
    public let message: String
    /// Extra response headers (`Retry-After`).
    public var headers: [(String, String)] = []

    public init(_ code: Code, _ message: String, status: Int? = nil, headers: [(String, String)] = []) {
        self.code = code
        self.message = message
        self.status = status ?? code.status
        self.headers = headers
    }

    private init(unauthorized: Void) {
        status = 403
        code = nil
        message = "unauthorized"
    }

    /// 403 `{"error": "unauthorized"}`: no or a wrong application id, or client key.
    public static let unauthorized = ParseError(unauthorized: ())
    /// 209: no session where one is needed, or one unknown, expired, revoked or banned.
    public static let invalidSession = ParseError(.invalidSessionToken, "Invalid session token")
    /// 119: a read without a session on a server without `--public-read` (where `/v1` answers
    /// 401); parse-server answers its class-level permissions' refusals so, with status 400.
    public static let readNeedsSession = ParseError(.operationForbidden, "This server answers reads to signed-in users only: log in first.")
    /// 101 "Object not found.": missing, or hidden from this caller (never 403, as parse-server).
    public static let objectNotFound = ParseError(.objectNotFound, "Object not found.")

    public static func == (lhs: ParseError, rhs: ParseError) -> Bool {
        lhs.status == rhs.status && lhs.code == rhs.code && lhs.message == rhs.message
    }

    /// The error as the response a Parse client reads.
    public var response: Response {
        var writer = JSONWriter(capacity: 128)
        writer.beginObject()
        if let code { writer.field("code", code.rawValue) }
        writer.field("error", message)
        writer.endObject()
        var response = Response.json(status, writer: writer)
        response.headers.append(contentsOf: headers)
        return response
    }
}
