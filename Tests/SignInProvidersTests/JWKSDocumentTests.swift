import Crypto
import SignInProviders
import Testing

/// Reading a JWKS and its Cache-Control, without a network.
@Suite struct JWKSDocumentTests {
    /// A 2048-bit RSA modulus (CryptoTests' JWK vector) and the usual exponent.
    static let n = "kWOROJ38Qr77LxMRH1gQHlEpfjp3eRB9EOn5R-cuKq3fQWjWlxTmh1ILIHtuofn4CLkWOyrPmp_1s7tN2BjgzYoyo1HyFatXOP12gLif5iJxm5aTzCG7oCD1kADIpm2At5FfQpVFEXeIBAySgejbSmsOqnS9iH9-OtQS3ZNT-T24kEsmwipotE1v1oBfrPqeHz7cBZmkyxjrveC0pJHxHTIn4dB24WxY3ns2DYYOoDIcAoZ3dMFKv-J4pBtyL6EK0bX4Y6a3UJPZqI3WOntZrLWxuweHKebcelquG24wRTHP_TkZ6P-MV9XP7knNsovJvDCoF6TKz48lLqmCnoyUwQ"

    func key(_ kid: String, _ extra: String = "") -> String {
        #"{"kty":"RSA","kid":"\#(kid)","n":"\#(Self.n)","e":"AQAB"\#(extra)}"#
    }

    func keys(_ entries: String...) -> [String]? {
        JWKSDocument.keys(from: Array(#"{"keys":[\#(entries.joined(separator: ","))]}"#.utf8), maxKeys: 3).map { $0.keys.sorted() }
    }

    @Test func onlyRS256SigningKeysAreKept() {
        #expect(keys(key("a"), key("b", #","use":"sig","alg":"RS256""#)) == ["a", "b"])
        #expect(keys(key("a"), key("enc", #","use":"enc""#), key("ps", #","alg":"PS256""#)) == ["a"])
        #expect(keys(key("a"), #"{"kty":"EC","kid":"ec","crv":"P-256","x":"AA","y":"AA"}"#) == ["a"])
        #expect(keys(key("a"), #"{"kty":"RSA","kid":"weak","n":"AQAB","e":"AQAB"}"#) == ["a"], "a tiny modulus")
        #expect(keys(key("a"), #"{"kty":"RSA","n":"\#(Self.n)","e":"AQAB"}"#) == ["a"], "no kid")
        #expect(keys(key("a"), key("a", #","alg":"RS256""#)) == ["a"], "a kid twice keeps the first")
        #expect(keys(key("a"), key("b"), key("c"), key("d"), key("e")) == ["a", "b", "c"], "bounded")
        #expect(keys(key("enc", #","use":"enc""#)) == nil, "no usable key: not a set")
        #expect(JWKSDocument.keys(from: Array("<html>".utf8), maxKeys: 3) == nil)
        #expect(JWKSDocument.keys(from: Array(#"{"keys":{}}"#.utf8), maxKeys: 3) == nil)
    }

    @Test func theMaxAgeIsClamped() {
        let range = 300...86_400
        #expect(JWKSDocument.maxAge(cacheControl: "public, max-age=21600, must-revalidate, no-transform", default: 3_600, range: range) == 21_600)
        #expect(JWKSDocument.maxAge(cacheControl: nil, default: 3_600, range: range) == 3_600)
        #expect(JWKSDocument.maxAge(cacheControl: "public", default: 3_600, range: range) == 3_600)
        #expect(JWKSDocument.maxAge(cacheControl: "max-age=5", default: 3_600, range: range) == 300)
        #expect(JWKSDocument.maxAge(cacheControl: "max-age=0", default: 3_600, range: range) == 300)
        #expect(JWKSDocument.maxAge(cacheControl: "no-store", default: 3_600, range: range) == 300)
        #expect(JWKSDocument.maxAge(cacheControl: "max-age=99999999999999999999", default: 3_600, range: range) == 86_400)
        #expect(JWKSDocument.maxAge(cacheControl: "MAX-AGE = \"600\"", default: 3_600, range: range) == 600)
        #expect(JWKSDocument.maxAge(cacheControl: "max-age=-5", default: 3_600, range: range) == 3_600)
    }
}
