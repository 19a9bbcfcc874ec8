import Auth
import Community
import HTTP
import JSON
import Storage
import Telemetry
import Testing
import VideoRegistry
@testable import ParseREST

/// The error table: each failure's Parse code and HTTP status, as PARSE-REST.md §1.6 and
/// API.md say (101 404, 209 400, every other Parse error 400, never a 5xx for bad input).
struct ParseErrorsTests {
    func answer(_ error: any Error) -> (status: Int, code: Int?) {
        let mapped = ParseErrors.map(error)
        return (mapped?.status ?? 500, mapped?.code?.rawValue)
    }

    @Test(arguments: [
        (AuthError.invalidCredentials, 404, 101),
        (AuthError.invalidSession, 400, 209),
        (AuthError.usernameTaken, 400, 202),
        (AuthError.emailTaken, 400, 203),
        (AuthError.accountLocked(retryAfterSeconds: 60), 404, 101),
        (AuthError.accountBanned, 400, 119),
        (AuthError.validation(field: "email", message: "bad"), 400, 125),
        (AuthError.validation(field: "username", message: "bad"), 400, 142),
        (AuthError.notFound, 404, 101),
    ] as [(AuthError, Int, Int)])
    func authErrors(error: AuthError, status: Int, code: Int) {
        #expect(answer(error) == (status, code))
    }

    @Test func domainErrors() {
        #expect(answer(VideoRegistryError.notFound) == (404, 101))
        #expect(answer(VideoRegistryError.duplicateVideo) == (400, 137))
        #expect(answer(VideoRegistryError.validation(field: "title", message: "long")) == (400, 142))
        #expect(answer(SocialError.notFound(.user)) == (404, 101))
    }

    @Test func queryErrors() {
        #expect(answer(ParseQueryError.unsupportedOperator(field: "title", op: "$regex")) == (400, 102))
        #expect(answer(ParseQueryError.unindexed(className: "Video", supported: "x")) == (400, 102))
        #expect(answer(ParseQueryError.unknownField(className: "Video", field: "x")) == (400, 105))
        #expect(answer(ParseQueryError.invalidKeyName("a.b")) == (400, 105))
    }

    @Test func sharedPathsAndTheServersState() {
        let limited = ParseErrors.map(APIError(status: 429, code: "rate_limited", message: "slow down", headers: [("Retry-After", "3")]))
        #expect(limited.status == 429 && limited.code == .connectionFailed)
        #expect(limited.headers.first?.1 == "3")
        #expect(answer(APIError.validation("email", "email must be an email address.")) == (400, 125))
        // A busy database is the server's state: a 5xx on purpose, which the SDK retries.
        #expect(answer(StorageError.busy) == (503, 1))
        #expect(ParseErrors.map(CocoaLikeError()) == nil)
    }

    @Test func theEnvelope() throws {
        let body = try JSONValue.parse(ParseError(.invalidQuery, "nope").response.body)
        #expect(body == .object(["code": .int(102), "error": .string("nope")]))
        let unauthorized = ParseError.unauthorized.response
        #expect(unauthorized.status == 403)
        #expect(try JSONValue.parse(unauthorized.body) == .object(["error": .string("unauthorized")]))
        let internalError = ParseErrors.render(CocoaLikeError(), logger: Logger(handler: NullLogHandler()))
        #expect(internalError.status == 500)
        #expect(try JSONValue.parse(internalError.body)["code"] == .int(1))
    }

    struct CocoaLikeError: Error {}
}
