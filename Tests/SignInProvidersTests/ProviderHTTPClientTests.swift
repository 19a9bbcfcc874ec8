import Foundation
import JSON
import SignInProviders
import TestSupport
import Testing

/// The bounded GET client, against the stand-in: TLS verified, answers bounded in time and size,
/// and only https (or http to loopback) spoken.
@Suite(.serialized) struct ProviderHTTPClientTests {
    @Test func onlyHTTPSOrLoopbackHTTPIsAllowed() {
        for url in ["https://appleid.apple.com/auth/keys", "https://www.googleapis.com/oauth2/v3/certs", "https://graph.facebook.com",
                    "http://127.0.0.1:8080/jwks", "http://127.1.2.3/x", "http://localhost:9/jwks", "http://[::1]:80/jwks", "HTTPS://Example.com"] {
            #expect(ProviderURL.isAllowed(url), "\(url)")
        }
        for url in ["http://appleid.apple.com/auth/keys", "http://10.0.0.1/jwks", "http://127.0.0.1.example.com/jwks", "http://localhost.example/x",
                    "ftp://127.0.0.1/x", "file:///etc/passwd", "https://user:pw@example.com/", "https://", "https:///path",
                    "https://example.com/a b", "https://example.com/\r\nX-Injected: 1", "https://example.com/#fragment", "//example.com",
                    "http://[::2]/x", "http://127.0.0.+1/x"] {
            #expect(!ProviderURL.isAllowed(url), "\(url)")
        }
    }

    @Test func aGetOverVerifiedTLSAndOverLoopbackHTTP() throws {
        let standIn = try IdentityStandIn()
        let client = try ProviderHTTPClient(ProviderHTTPClient.Configuration(timeoutMillis: 2_000, extraCAFile: standIn.caFile))
        let response = try client.get(standIn.jwksURL).get()
        #expect(response.status == 200)
        #expect(response.headers["cache-control"] == "public, max-age=3600")
        #expect(try JSONValue.parse(response.body)["keys"]?.arrayValue?.count == 1)
        #expect(try client.get(standIn.baseURL + "/nothing").get().status == 404, "any status is an answer")
        // localhost is in the certificate too.
        #expect(try client.get("https://localhost:\(standIn.port)/jwks").get().status == 200)

        // Without the stand-in's CA, TLS is refused: verification is on.
        let untrusting = try ProviderHTTPClient(ProviderHTTPClient.Configuration(timeoutMillis: 2_000))
        guard case .failure(let error) = untrusting.get(standIn.jwksURL) else { Issue.record("an untrusted certificate was accepted"); return }
        #expect(error.kind == .transport)

        let plain = try IdentityStandIn(plain: true)
        #expect(try client.get(plain.jwksURL).get().status == 200)
        guard case .failure(let refused) = client.get("http://example.com/jwks") else { Issue.record("cleartext to a remote host"); return }
        #expect(refused.kind == .refusedURL)
        #expect(plain.requests().count == 1)
    }

    @Test func aSlowAnswerTimesOutWithinTheBoundAndALargeOneIsCutOff() throws {
        let standIn = try IdentityStandIn()
        let client = try ProviderHTTPClient(ProviderHTTPClient.Configuration(timeoutMillis: 1_000, extraCAFile: standIn.caFile))
        try standIn.control(["jwks": ["mode": "slow", "delay": 5]])
        var outcome: Result<ProviderResponse, ProviderFetchError>?
        let elapsed = seconds { outcome = client.get(standIn.jwksURL) }
        guard case .failure(let error) = outcome else { Issue.record("a slow answer was waited for"); return }
        #expect(error.kind == .timeout)
        #expect(elapsed < 2.5, "\(elapsed) s for a 1 s bound")
        // A shorter budget of the caller's wins.
        let short = seconds { _ = client.get(standIn.jwksURL, budgetMillis: 200) }
        #expect(short < 1.5, "\(short) s for a 200 ms budget")

        try standIn.control(["jwks": ["mode": "huge"]])
        guard case .failure(let large) = client.get(standIn.jwksURL) else { Issue.record("2 MiB accepted"); return }
        #expect(large.kind == .tooLarge)

        let nobody = try ProviderHTTPClient(ProviderHTTPClient.Configuration(timeoutMillis: 1_000))
        guard case .failure(let refused) = nobody.get("http://127.0.0.1:1/jwks") else { Issue.record("port 1 answered"); return }
        #expect(refused.kind == .transport)
    }

    @Test func badSettingsAreRefusedAtStart() throws {
        #expect(throws: ProviderConfigurationError.self) { try ProviderHTTPClient(ProviderHTTPClient.Configuration(timeoutMillis: 0)) }
        #expect(throws: ProviderConfigurationError.unreadableFile(path: "/nonexistent/ca.pem")) {
            try ProviderHTTPClient(ProviderHTTPClient.Configuration(extraCAFile: "/nonexistent/ca.pem"))
        }
        let notPEM = FileManager.default.temporaryDirectory.appendingPathComponent("pacenote-not-a-ca-\(UUID().uuidString)")
        try Data("hello".utf8).write(to: notPEM)
        defer { try? FileManager.default.removeItem(at: notPEM) }
        #expect(throws: ProviderConfigurationError.invalidCAFile(path: notPEM.path)) {
            try ProviderHTTPClient(ProviderHTTPClient.Configuration(extraCAFile: notPEM.path))
        }
    }
}
