import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `deploy/nginx-multinode.conf`, run by Debian's nginx in front of two servers on one
/// PostgreSQL (loopback, free ports; only its addresses are swapped): requests are answered
/// through it by both servers, the client's address reaches the servers' rate limits, nginx's
/// own refusals come in the API's envelope, `/metrics` is not served, and with one server
/// killed every request is still answered.
final class NginxTests: XCTestCase {
    private var nodes: Nodes!
    private var nginx: Nginx?

    override func setUpWithError() throws {
        try super.setUpWithError()
        nodes = try Nodes()
    }

    override func tearDown() {
        nginx = nil
        nodes?.stopAll()
        nodes = nil
        _ = ResponseAudit.shared.drainViolations()
        super.tearDown()
    }

    func testTwoServersBehindTheDeployedConfig() throws {
        // The servers trust nginx's X-Forwarded-For, hold more connections from it than from a
        // client (it is every client), and count requests per client: 10 a minute, each.
        let flags = ["--trusted-proxy", "127.0.0.1", "--max-connections-per-ip", "1024", "--limit-requests", "10/m"]
        let servers = try nodes.start([flags, flags])
        let nginx = try Nginx(upstreams: servers.map(\.port))
        self.nginx = nginx

        // Both servers answer through it (round robin): one client address per request, so the
        // per-client limit stays out of the way.
        let before = try servers.map { try Nodes.metric($0, #"pacenote_http_requests_total{route="/healthz",method="GET",status="200"}"#) }
        for index in 0..<8 {
            XCTAssertEqual(try Self.exchange(port: nginx.port, source: "127.0.1.\(index + 1)", "GET /healthz HTTP/1.1\r\nHost: api\r\n\r\n").status, 200)
        }
        let after = try servers.map { try Nodes.metric($0, #"pacenote_http_requests_total{route="/healthz",method="GET",status="200"}"#) }
        XCTAssertEqual(zip(after, before).map { $0 - $1 }, [4, 4], "round robin over the two servers")

        // The client's address, not nginx's, is what a server limits: 127.0.2.1 is refused once it
        // has used both servers' budgets, whatever X-Forwarded-For it sends, while 127.0.2.2 is not.
        var statuses: [Int] = []
        for index in 0..<30 {
            let forged = index.isMultiple(of: 2) ? "X-Forwarded-For: 198.51.100.\(index)\r\n" : ""
            statuses.append(try Self.exchange(port: nginx.port, source: "127.0.2.1", "GET /healthz HTTP/1.1\r\nHost: api\r\n\(forged)\r\n").status)
        }
        XCTAssertEqual(statuses.filter { $0 == 200 }.count, 20, "10 a minute on each of the two servers: \(statuses)")
        XCTAssertEqual(statuses.filter { $0 == 429 }.count, 10, "\(statuses)")
        XCTAssertEqual(try Self.exchange(port: nginx.port, source: "127.0.2.2", "GET /healthz HTTP/1.1\r\nHost: api\r\n\r\n").status, 200,
                       "another client behind the same nginx has its own budget")

        // nginx refuses a body over the API's 64 KiB itself, on its Content-Length, in the API's envelope.
        let tooLarge = try Self.exchange(port: nginx.port, source: "127.0.3.1",
                                         "POST /v1/users HTTP/1.1\r\nHost: api\r\nContent-Type: application/json\r\nContent-Length: 70000\r\n\r\n")
        XCTAssertEqual(tooLarge.status, 413)
        XCTAssertEqual(child(tooLarge.json, "error")?["code"] as? String, "payload_too_large", tooLarge.text)
        // /metrics is for Prometheus on each server, not for the internet.
        XCTAssertEqual(try Self.exchange(port: nginx.port, source: "127.0.3.2", "GET /metrics HTTP/1.1\r\nHost: api\r\n\r\n").status, 404)
        XCTAssertEqual(try HTTPClient(port: servers[0].port).request("GET", "/metrics").status, 200, "served to whoever reaches a server directly")

        // One server killed: every request, reads and writes, is still answered through nginx.
        let client = HTTPClient(port: nginx.port)
        let owner = try client.signup(), fan = try client.signup()
        let videoId = try Nodes.video(client, owner: owner, rallyId: try Nodes.rally(client, admin: try nodes.admin(on: servers[1])))
        servers[0].crash()
        var answered: [Int] = []
        for index in 0..<24 {
            let source = "127.0.4.\(index + 1)"  // each its own client, within the per-client limit
            let request = index.isMultiple(of: 2)
                ? "GET /v1/videos/\(videoId) HTTP/1.1\r\nHost: api\r\nAuthorization: Bearer \(owner.token)\r\n\r\n"
                : "\(index % 4 == 1 ? "PUT" : "DELETE") /v1/videos/\(videoId)/like HTTP/1.1\r\nHost: api\r\nAuthorization: Bearer \(fan.token)\r\nContent-Length: 0\r\n\r\n"
            answered.append(try Self.exchange(port: nginx.port, source: source, request).status)
        }
        XCTAssertEqual(answered, Array(repeating: 200, count: 24), "nginx sent to the live server what the dead one could not take")
        XCTAssertEqual(jsonInt(try client.request("GET", "/v1/videos/\(videoId)", token: owner.token).object?["likesCount"]), 0,
                       "six likes and six unlikes, each applied once")
    }

    /// One request on a fresh connection from `source` (a 127/8 address), read until nginx
    /// closes it or 15 s pass.
    private static func exchange(port: Int, source: String, _ request: String) throws -> (status: Int, text: String, json: [String: Any]?) {
        let connection = try RawConnection(port: port, source: source)
        let withClose = request.replacingOccurrences(of: "HTTP/1.1\r\n", with: "HTTP/1.1\r\nConnection: close\r\n")
        XCTAssertTrue(connection.send(withClose))
        let bytes = connection.readUntilClosed(timeout: 15) ?? []
        let text = String(decoding: bytes, as: UTF8.self)
        let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        let json = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
        return (RawConnection.status(of: bytes) ?? 0, text, json)
    }
}

/// Debian's nginx (`scripts/deps nginx-light`) running `deploy/nginx-multinode.conf`, its
/// `listen` and upstream servers swapped for loopback ports, as one process (no master) with
/// its files in a temporary folder. Killed when released.
final class Nginx {
    let port: Int
    private let directory: URL
    private let process: Process

    init(upstreams: [Int]) throws {
        let binary = "/usr/sbin/nginx"
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw NodesError(description: "no nginx at \(binary): run scripts/deps nginx-light (scripts/test does)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pacenote-nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        port = try freeLoopbackPort()
        let deployed = try String(contentsOf: StandIn.packageRoot.appendingPathComponent("deploy/nginx-multinode.conf"), encoding: .utf8)
        try Self.adapt(deployed, port: port, upstreams: upstreams)
            .write(to: directory.appendingPathComponent("pacenote.conf"), atomically: true, encoding: .utf8)
        try """
            daemon off;
            master_process off;
            pid nginx.pid;
            events { worker_connections 1024; }
            http {
                access_log off;
                client_body_temp_path tmp/body;
                proxy_temp_path tmp/proxy;
                fastcgi_temp_path tmp/fastcgi;
                uwsgi_temp_path tmp/uwsgi;
                scgi_temp_path tmp/scgi;
                include pacenote.conf;
            }
            """.write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-p", directory.path, "-c", directory.appendingPathComponent("nginx.conf").path,
                             "-e", directory.appendingPathComponent("error.log").path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let port = self.port
        guard waitUntil(timeout: 15, { (try? HTTPClient(port: port).request("GET", "/healthz").status) == 200 }) else {
            let log = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw NodesError(description: "nginx did not answer /healthz on port \(port) within 15 s: \(log)")
        }
    }

    deinit {
        // SIGKILL: the child inherits the test thread's signal mask, which may block SIGTERM.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The deployed file with `listen` on 127.0.0.1:`port` and one upstream line per port. Fails
    /// when the file no longer has the lines this swaps, rather than testing something else.
    static func adapt(_ config: String, port: Int, upstreams: [Int]) throws -> String {
        var lines: [String] = []
        var swappedListen = false, swappedServers = false
        for line in config.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("listen "), trimmed.hasSuffix(";"), !trimmed.contains("ssl") {
                lines.append("    listen 127.0.0.1:\(port);")
                swappedListen = true
            } else if trimmed.hasPrefix("server 127.0.0.1:") {
                if !swappedServers {
                    let options = trimmed.split(separator: " ").dropFirst(2).joined(separator: " ")
                    lines += upstreams.map { "    server 127.0.0.1:\($0) \(options)" }
                    swappedServers = true
                }
            } else {
                lines.append(String(line))
            }
        }
        guard swappedListen, swappedServers else {
            throw NodesError(description: "deploy/nginx-multinode.conf has no `listen PORT;` or no `server 127.0.0.1:PORT ...;` upstream lines to swap")
        }
        return lines.joined(separator: "\n")
    }
}
