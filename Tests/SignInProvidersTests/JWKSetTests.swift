import Crypto
import Foundation
import SignInProviders
import Testing

@Suite struct JWKSetTests {
    /// The modulus of IDTokenCheckTests.providerPublicKey is not at hand as a JWK here, so the
    /// set is checked with a key whose n/e the Crypto tests also use.
    static let n = "kWOROJ38Qr77LxMRH1gQHlEpfjp3eRB9EOn5R-cuKq3fQWjWlxTmh1ILIHtuofn4CLkWOyrPmp_1s7tN2BjgzYoyo1HyFatXOP12gLif5iJxm5aTzCG7oCD1kADIpm2At5FfQpVFEXeIBAySgejbSmsOqnS9iH9-OtQS3ZNT-T24kEsmwipotE1v1oBfrPqeHz7cBZmkyxjrveC0pJHxHTIn4dB24WxY3ns2DYYOoDIcAoZ3dMFKv-J4pBtyL6EK0bX4Y6a3UJPZqI3WOntZrLWxuweHKebcelquG24wRTHP_TkZ6P-MV9XP7knNsovJvDCoF6TKz48lLqmCnoyUwQ"

    @Test func theRS256SigningKeysByKid() throws {
        let document: [String: Any] = ["keys": [
            ["kty": "RSA", "kid": "good", "use": "sig", "alg": "RS256", "n": Self.n, "e": "AQAB"],
            ["kty": "RSA", "kid": "bare", "n": Self.n, "e": "AQAB"],
            ["kty": "RSA", "kid": "encryption", "use": "enc", "n": Self.n, "e": "AQAB"],
            ["kty": "RSA", "kid": "ps256", "alg": "PS256", "n": Self.n, "e": "AQAB"],
            ["kty": "EC", "kid": "ec", "crv": "P-256", "x": "AA", "y": "AA"],
            ["kty": "RSA", "kid": "short", "n": "AQAB", "e": "AQAB"],
            ["kty": "RSA", "n": Self.n, "e": "AQAB"],
        ]]
        let set = try #require(JWKSet.parse(Array(try JSONSerialization.data(withJSONObject: document))))
        #expect(Set(set.keys.keys) == ["good", "bare"])
    }

    @Test func whatIsNotAKeySetIsNil() {
        #expect(JWKSet.parse(Array("not json".utf8)) == nil)
        #expect(JWKSet.parse(Array(#"{"keys": "none"}"#.utf8)) == nil)
        #expect(JWKSet.parse(Array(repeating: 0x20, count: JWKSet.maxBytes + 1)) == nil)
        #expect(JWKSet.parse(Array(#"{"keys": []}"#.utf8))?.keys.isEmpty == true)
    }
}
