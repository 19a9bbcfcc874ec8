import Foundation
import XCTest

/// Many phones signing up at the same moment.
final class ConcurrencyTests: ServerTestCase {
    /// Runs `work` on `count` threads, each with its own connection, released together.
    private func onThreads(_ count: Int, _ work: @escaping @Sendable (Int, HTTPClient) -> String) -> [String] {
        runConcurrently(port: server.port, count, work)
    }

    func testTwentyConcurrentSignupsAllSucceedWithDistinctIds() throws {
        let names = (0..<20).map { _ in Fake.username() }
        let passwords = (0..<20).map { _ in Fake.password() }
        let outcomes = onThreads(20) { index, client in
            do {
                let account = try client.signup(username: names[index], password: passwords[index])
                return "201 \(account.id)"
            } catch {
                return "failed: \(error)"
            }
        }
        let ids = outcomes.compactMap { $0.hasPrefix("201 ") ? String($0.dropFirst(4)) : nil }
        XCTAssertEqual(ids.count, 20, "every concurrent signup answers 201:\n\(outcomes.joined(separator: "\n"))")
        XCTAssertEqual(Set(ids).count, ids.count, "ids are distinct: \(ids)")
        for (index, name) in names.enumerated() {
            let session = try client.login(name, passwords[index])
            XCTAssertEqual(session.user["username"] as? String, name)
        }
    }

    func testConcurrentSignupsForOneUsernameGiveOneAccount() throws {
        let name = Fake.username()
        let outcomes = onThreads(10) { index, client in
            let result = try? client.request("POST", "/v1/users", json: [
                "username": index % 2 == 0 ? name : name.uppercased(),
                "email": "race\(index).\(name)@example.com",
                "password": "Pw-race-\(name)",
            ])
            guard let result else { return "no answer" }
            return "\(result.status) \(result.errorCode ?? "")"
        }
        XCTAssertEqual(outcomes.filter { $0.hasPrefix("201") }.count, 1, "exactly one wins:\n\(outcomes.joined(separator: "\n"))")
        XCTAssertEqual(outcomes.filter { $0 == "409 username_taken" }.count, 9,
                       "the others get 409 username_taken, never a 5xx:\n\(outcomes.joined(separator: "\n"))")
    }
}
