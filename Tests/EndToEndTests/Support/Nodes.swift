import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Several `pacenote serve` processes on one fresh PostgreSQL schema, as an operator runs them
/// behind a load balancer: the same `--database` and `--cursor-secret` for all. Needs the test
/// cluster (`scripts/postgres`, which `scripts/test` uses); without it the test is skipped on a
/// developer's machine and fails in CI (`TemporaryPostgres.requireCluster`).
final class Nodes {
    /// The key every node authenticates cursors with, so a cursor from one is good on another.
    static let cursorSecret = (0..<32).map { _ in String(format: "%02x", Int.random(in: 0...255)) }.joined()

    let database: TemporaryPostgres
    private(set) var servers: [TestServer] = []

    init() throws {
        try TemporaryPostgres.requireCluster()
        database = try TemporaryPostgres()
    }

    /// Starts one node per element of `arguments` (its extra `serve` flags), all at once, as
    /// servers deployed together start: they race to apply the migrations, which the
    /// migrator's advisory lock makes happen once.
    @discardableResult
    func start(_ arguments: [[String]]) throws -> [TestServer] {
        let started = try arguments.map { try TestServer(extraArguments: ["--cursor-secret", Self.cursorSecret] + $0, sharing: database) }
        let failures = Locked([String]())
        DispatchQueue.concurrentPerform(iterations: started.count) { index in
            do {
                try started[index].start(timeout: 60)
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        servers += started
        guard failures.withLock({ $0.isEmpty }) else { throw NodesError(description: failures.withLock { $0.joined(separator: "\n") }) }
        return started
    }

    /// Stops every node still running (SIGTERM, then SIGKILL after a while).
    func stopAll() {
        for server in servers { server.stop() }
    }

    /// An administrator made with `pacenote user create` through `node`, logged in there.
    func admin(on node: TestServer) throws -> Account {
        let username = "adm_" + Fake.username(length: 12), password = Fake.password()
        let run = node.runCLI(["user", "create", "--username", username, "--email", Fake.email(for: username), "--password", password,
                               "--role", "admin", "--bcrypt-cost", "4"])
        guard run.status == 0 else {
            throw NodesError(description: "pacenote user create --role admin: \(run.stdout)\n\(run.stderr)")
        }
        let session = try HTTPClient(port: node.port).login(username, password)
        return Account(username: username, email: Fake.email(for: username), password: password, token: session.token, user: session.user)
    }

    /// A rally live today, made by `admin` through `client`; its id.
    static func rally(_ client: HTTPClient, admin: Account) throws -> String {
        let result = try client.request("POST", "/v1/rallies", json: ["name": "Rally \(Fake.word())", "country": "Finland",
                                                                      "startDate": UTCDate.today(-1), "endDate": UTCDate.today(1)],
                                        token: admin.token)
        guard result.status == 201, let id = result.object?["id"] as? String else { throw UnexpectedResponse(request: "POST /v1/rallies", result: result) }
        return id
    }

    /// A video on day 1 of `rallyId` by `owner`, through `client`; its id.
    static func video(_ client: HTTPClient, owner: Account, rallyId: String, title: String = "Stage \(Fake.word())") throws -> String {
        let result = try client.request("POST", "/v1/videos", json: ["youtubeId": Fake.youtubeId(), "title": title, "rallyId": rallyId, "day": 1],
                                        token: owner.token)
        guard result.status == 201, let id = result.object?["id"] as? String else { throw UnexpectedResponse(request: "POST /v1/videos", result: result) }
        return id
    }

    /// `count` accounts signed up at once, spread over `ports` in turn.
    static func signUp(_ count: Int, ports: [Int]) throws -> [Account] {
        let made = Locked([Int: Account]())
        let outcomes = runConcurrently(ports: ports, count) { index, client in
            do {
                let account = try client.signup()
                made.withLock { $0[index] = account }
                return "ok"
            } catch {
                return "\(error)"
            }
        }
        let accounts = made.withLock { made in (0..<count).compactMap { made[$0] } }
        guard accounts.count == count else { throw NodesError(description: "\(count) sign-ups: \(outcomes.filter { $0 != "ok" })") }
        return accounts
    }

    /// The value of the metric line `name{labels}` of a node's `/metrics` (0 when absent).
    static func metric(_ node: TestServer, _ line: String) throws -> Double {
        let text = try HTTPClient(port: node.port).request("GET", "/metrics").text
        return text.split(separator: "\n").first { $0.hasPrefix(line + " ") }
            .flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
    }
}

/// Why a group of nodes could not be set up, with what the servers said.
struct NodesError: Error, CustomStringConvertible {
    let description: String
}

/// A TCP port on 127.0.0.1 that nothing listens on now (the kernel's pick for port 0).
func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw HTTPClientError.connectFailed(port: 0, errno: errno) }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw HTTPClientError.connectFailed(port: 0, errno: errno) }
    return Int(UInt16(bigEndian: address.sin_port))
}
