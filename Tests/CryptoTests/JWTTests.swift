import Crypto
import Testing

@Suite struct JWTTests {
    @Test func rs256MatchesAnIndependentImplementationByteForByte() throws {
        let key = try SigningKey(pem: JWTVectors.rsaPrivate, algorithm: .rs256)
        let token = try JWT.sign(
            header: Array(JWTVectors.rs256Header.utf8), claims: Array(JWTVectors.rs256Claims.utf8), with: key)
        #expect(token == JWTVectors.rs256Token)
    }

    @Test func es256SignatureIsRawRAndSAndVerifiesWithThePublicKey() throws {
        let key = try SigningKey(pem: JWTVectors.ecPrivate, algorithm: .es256)
        let publicKey = try VerifyingKey(pem: JWTVectors.ecPublic, algorithm: .es256)
        let claims = Array(#"{"iss":"TEAM123456","iat":1700000000}"#.utf8)
        let token = try JWT.sign(header: Array(#"{"alg":"ES256","kid":"KEY1234567"}"#.utf8), claims: claims, with: key)
        let parts = token.split(separator: ".")
        #expect(parts.count == 3)
        // JWS wants 64 bytes (r || s), not the ~70-72 byte DER OpenSSL produces.
        #expect(Base64URL.decode(String(parts[2]))?.count == 64)
        let verified = try #require(JWT.verify(token, with: publicKey))
        #expect(verified.claims == claims)
    }

    @Test func es256TokenFromPyJWTVerifies() throws {
        let publicKey = try VerifyingKey(pem: JWTVectors.ecPublic, algorithm: .es256)
        let verified = try #require(JWT.verify(JWTVectors.es256Token, with: publicKey))
        #expect(String(decoding: verified.claims, as: UTF8.self) == #"{"iss":"TEAM123456","iat":1700000000}"#)
    }

    @Test func tamperedTokensDoNotVerify() throws {
        let publicKey = try VerifyingKey(pem: JWTVectors.ecPublic, algorithm: .es256)
        let parts = JWTVectors.es256Token.split(separator: ".").map(String.init)
        let otherClaims = Base64URL.encode(Array(#"{"iss":"SOMEONE","iat":1700000000}"#.utf8))
        #expect(JWT.verify(parts[0] + "." + otherClaims + "." + parts[2], with: publicKey) == nil)
        #expect(JWT.verify(parts[0] + "." + parts[1] + "." + String(parts[2].reversed()), with: publicKey) == nil)
        #expect(JWT.verify(parts[0] + "." + parts[1], with: publicKey) == nil)
        #expect(JWT.verify("", with: publicKey) == nil)
        let rsaPublic = try VerifyingKey(pem: JWTVectors.rsaPublic, algorithm: .rs256)
        var rs = JWTVectors.rs256Token
        rs.removeLast()
        rs.append(JWTVectors.rs256Token.hasSuffix("A") ? "Q" : "A")
        #expect(JWT.verify(rs, with: rsaPublic) == nil)
        #expect(JWT.verify(JWTVectors.rs256Token, with: rsaPublic) != nil)
    }

    @Test func keysOfTheWrongKindOrNotPEMAreRefused() {
        #expect(throws: SigningError.self) { try SigningKey(pem: JWTVectors.rsaPrivate, algorithm: .es256) }
        #expect(throws: SigningError.self) { try SigningKey(pem: JWTVectors.ecPrivate, algorithm: .rs256) }
        #expect(throws: SigningError.self) { try SigningKey(pem: "not a key", algorithm: .es256) }
        #expect(throws: SigningError.self) { try SigningKey(pem: JWTVectors.ecPublic, algorithm: .es256) }
        #expect(throws: SigningError.self) { try VerifyingKey(pem: JWTVectors.rsaPublic, algorithm: .es256) }
    }

    @Test func keyIsRedacted() throws {
        let key = try SigningKey(pem: JWTVectors.ecPrivate, algorithm: .es256)
        #expect("\(key)" == "SigningKey(ES256, redacted)")
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains("PRIVATE"))
    }
}

