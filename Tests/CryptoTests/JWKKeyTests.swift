import Crypto
import Testing

/// RSA keys as JSON Web Keys carry them (`n`, `e`), as sign-in providers publish them in JWKS.
@Suite struct JWKKeyTests {
    /// `JWTVectors.rsaPublic` as a JWK's `n` and `e` (base64url, big-endian).
    static let n = "kWOROJ38Qr77LxMRH1gQHlEpfjp3eRB9EOn5R-cuKq3fQWjWlxTmh1ILIHtuofn4CLkWOyrPmp_1s7tN2BjgzYoyo1HyFatXOP12gLif5iJxm5aTzCG7oCD1kADIpm2At5FfQpVFEXeIBAySgejbSmsOqnS9iH9-OtQS3ZNT-T24kEsmwipotE1v1oBfrPqeHz7cBZmkyxjrveC0pJHxHTIn4dB24WxY3ns2DYYOoDIcAoZ3dMFKv-J4pBtyL6EK0bX4Y6a3UJPZqI3WOntZrLWxuweHKebcelquG24wRTHP_TkZ6P-MV9XP7knNsovJvDCoF6TKz48lLqmCnoyUwQ"
    static let e = "AQAB"

    @Test func aKeyFromItsModulusAndExponentVerifiesWhatThePEMKeyVerifies() throws {
        let modulus = try #require(Base64URL.decode(Self.n))
        let key = try VerifyingKey(rsaModulus: modulus, exponent: try #require(Base64URL.decode(Self.e)))
        #expect(key.algorithm == .rs256)
        let verified = try #require(JWT.verify(JWTVectors.rs256Token, with: key))
        #expect(String(decoding: verified.claims, as: UTF8.self) == JWTVectors.rs256Claims)
        // The claims changed: the signature no longer holds.
        var parts = JWTVectors.rs256Token.split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Array(#"{"iss":"attacker@example.com","iat":1700000000}"#.utf8))
        #expect(JWT.verify(parts.joined(separator: "."), with: key) == nil)
        // A leading zero byte (some encoders keep the sign byte) is the same key.
        #expect(JWT.verify(JWTVectors.rs256Token, with: try VerifyingKey(rsaModulus: [0] + modulus, exponent: [1, 0, 1])) != nil)
    }

    @Test func weakOrMalformedKeysAreRefused() throws {
        let modulus = try #require(Base64URL.decode(Self.n))
        #expect(throws: SigningError.self, "1024 bits") { try VerifyingKey(rsaModulus: Array(modulus.prefix(128)), exponent: [1, 0, 1]) }
        #expect(throws: SigningError.self, "an even exponent") { try VerifyingKey(rsaModulus: modulus, exponent: [1, 0, 0]) }
        #expect(throws: SigningError.self, "no exponent") { try VerifyingKey(rsaModulus: modulus, exponent: []) }
        #expect(throws: SigningError.self, "no modulus") { try VerifyingKey(rsaModulus: [], exponent: [1, 0, 1]) }
    }
}
