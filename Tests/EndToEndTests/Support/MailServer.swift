import Foundation
import TestSupport
import XCTest

/// A `pacenote serve` that mails through an SMTP stand-in, with a client on it.
struct MailServer {
    static let from = "pacenote@example.com"
    let smtp: SMTPStandIn
    let server: TestServer
    let client: HTTPClient
    let publicURL: String

    /// `publicURL` nil: the server's own address (for links a browser opens), on a port picked
    /// before start; else links point there and tests take the token from them.
    init(smtp: SMTPStandIn, publicURL: String? = "https://pacenote.example", extra: [String] = []) throws {
        self.smtp = smtp
        var arguments = ["--smtp-url", smtp.url, "--mail-from", Self.from]
        var base = publicURL ?? ""
        if publicURL == nil {
            let port = try Self.freePort()
            base = "http://127.0.0.1:\(port)"
            arguments += ["--listen", "127.0.0.1:\(port)"]
        }
        self.publicURL = base
        server = try TestServer(extraArguments: arguments + ["--public-url", base] + extra)
        try server.start()
        client = HTTPClient(port: server.port)
    }

    /// A loopback port free now (bound, read, released); the server binds it a moment later.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw StandInError(description: "socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw StandInError(description: "bind() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The token of the link in a recorded mail, for `path` (`/account/verify`, `/account/reset`).
    func token(in message: [String: Any], path: String, file: StaticString = #filePath, line: UInt = #line) -> String? {
        let prefix = "\(publicURL)\(path)?token="
        guard let link = message.link(startingWith: prefix) else {
            XCTFail("no \(prefix) link in the mail: \(message.plainText)", file: file, line: line)
            return nil
        }
        XCTAssertTrue(message.htmlText.contains("href=\"\(link)\""), "the HTML part carries the same link", file: file, line: line)
        return String(link.dropFirst(prefix.count))
    }
}
