import Foundation
import XCTest

/// What an operator sees: logs without secrets, and a clean exit on SIGTERM.
final class GracefulStopAndLogTests: ServerTestCase {
    func testLogsNeverContainPasswordsOrTokensAndSIGTERMExitsZero() throws {
        // Every flow that carries a secret, including the failing ones.
        let account = try client.signup()
        let session = try client.login(account.email.uppercased(), account.password)
        _ = try client.request("POST", "/v1/sessions", json: ["login": account.username, "password": Fake.password()])
        _ = try client.request("POST", "/v1/sessions", json: ["login": Fake.username(), "password": Fake.password()])
        _ = try client.request("POST", "/v1/users", json: ["username": "x", "email": "bad", "password": Fake.password(length: 80)])
        _ = try client.request("GET", "/v1/users/me", token: "not-a-token-\(Fake.password())")
        let newPassword = Fake.password()
        _ = try client.request("PUT", "/v1/users/me/password", json: ["currentPassword": Fake.password(), "newPassword": newPassword], token: session.token)
        _ = try client.request("PUT", "/v1/users/me/password", json: ["currentPassword": account.password, "newPassword": newPassword], token: session.token)
        _ = try client.request("DELETE", "/v1/sessions/current", token: session.token)
        let other = try client.signup()
        _ = try client.request("DELETE", "/v1/users/me", json: ["password": Fake.password()], token: other.token)
        _ = try client.request("DELETE", "/v1/users/me", json: ["password": other.password], token: other.token)
        // Malformed bodies holding a password: a parser error must not echo the body into the log.
        let secretInBrokenBody = Fake.password()
        _ = try client.request("POST", "/v1/sessions", body: Data("{\"login\":\"x\",\"password\":\"\(secretInBrokenBody)\"".utf8))
        // The password change ended every other session, the sign-up one included.
        XCTAssertEqual(try client.me(account.token).status, 401)
        let fresh = try client.login(account.username, newPassword)
        XCTAssertEqual(try client.me(fresh.token).status, 200)
        client.close()

        let stopped = try XCTUnwrap(SharedServers.stop(Self.serverKey))
        XCTAssertFalse(stopped.isRunning)
        XCTAssertEqual(stopped.stop(), 0, "SIGTERM ends the server with exit status 0")
        XCTAssertFalse(stopped.stderrLines.isEmpty, "the server logs")
        assertNoSecretsLogged(stopped)
        for line in stopped.stderrLines where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            XCTAssertNotNil(object, "every log line is a JSON object: \(line.prefix(300))")
        }
        XCTAssertThrowsError(try HTTPClient(port: stopped.port, timeout: 2).request("GET", "/healthz"), "nothing listens after exit")
    }
}
