import Auth
import Crypto
import Foundation
import SignInProviders
import Testing

/// Every hostile ID token of issue 30 against the pure check: only an RS256 token signed by a
/// key of the provider's set, from its issuer, for this app, in time (and with the nonce, when
/// one is sent) names someone.
@Suite struct IDTokenCheckTests {
    static let providerKey = """
-----BEGIN PRIVATE KEY-----
MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQCzpnr8woR3dYn0
Yjiv3fQ8WQfFiV8IJ3rh6Oi58LimD1KVCj47FQxFf2SyhJGtPqwxbKYA4rMtcWai
RvfBIIssr3t0fU9hHJ5DkUfzrBIZf8zzocdejT3iww8v87YeoGdY9SaPac1/BS5I
V6lwfseBTr/Jd8HfBxTZKVqaT5QCbACK1yssTdL2+tqgxtjQEM4sIE8OSk7eslee
fzgyZMC1AAGVZkuI7wIT7moFJmEMO+byLY+tTNePLQXdslh69DSIg48xk6yIHQ90
AE6u2EfhQrPzZdSO/DNuYy10PKGKfvjCGNYxRdDfgDnYtWe+JLKhh1JA/BMvmSiZ
54itgfsdAgMBAAECggEAVHhf9b8EiCLlJdqVKuQi9ckq5U/NNklR9y0LWHp+Z95m
hxuU3TTtWzQmReYdlScV0ftzJpFxjFl4166kydMifXVZiBFvpIrPQ5fpDAMJU6IK
3TdhRe0Ffz0WRAbEyCvFzEcgxWgLLsFh3LQTQIjsB7neZb2Ak/yBagaOymXGg0g3
YhzC+8HTP9s22xkI8iXiaKcJ2b0RJAq2Tp3rfoJuRABIb4Bpd/3dLG9qUzVfaDa2
YFcWdeTRtHoJ1zP1tVTSq0IK8IJrf33XCvhUxL0Xi/Z5qOXN1OqEt3Cn5mePB4mj
BSwSnZdkbKIEJjYZVUmfeqCnrC7lZjU15vSmTqGehQKBgQD20aBZ0tuXVz/lvoz/
pBihbyh6P4Gb0+K6pRilVmCaE8xqP2iqStGYpJNXXXhpO6vxYuVq9aBxx0k9SdF4
8DUkTPWsYlU2I201aEWWcQZLWG5AIP5enQCQ9Z+aRArAoB+3LRiJ2Z5bdOQDfiVi
kNshQECTODz8LeR08E0USPvV0wKBgQC6VTr+53mrDpeJAaE4TzH7pvL5tk9zSdnB
AHGUk1dx99ZeErd6+WqOJNsyALtQNAD604iWZB8DXbQg0+YVNPlMy2/LRxhp1Tgs
+4sAtV5O+ISE+Vz2TPcgbJtWlWDL6boUOVE3ZtDFvioxFbcPxjTd/9F7OoEmzHLl
ZAORrt6lTwKBgQDBJADqyUn0/92MlrQXR/3ONgHix9dQbVo62/6RQyqM53lKmxv4
RlwFqqNx9j7Hel5uogkMzfEjl+MEBsPYc3/iTCbjIn+zwb0v0czCkOdwBl8f57Gl
sA5FYS/ns98GJUcsPCm7lYOJ5cqXwRrYKqqPNoxRp+xxGihwKarneMU46QKBgFBk
vZOFY6U+IntmTJzy7mnZWjQLSLRBRMZU3qxv9eaiO8dS4/8W5bZ2iGxGjIrKJTIT
Wncos4jMQQ943WiA9p7/lzhpcEsZR6eA0DR6DDqeVu7YeBd8lZNTyKHOyXixWyum
nzf8EE+BAMs0x0rzBZRS75rvXxHSXDBEupV8kWtZAoGBALzML7MKMsC1Ukgj8X6X
mqEp40W8ijqFyfLEwm9JiXPsvYY3Ht8HI7HUqQ1uLimZ60BVIchEScWNuBuM+7bs
h+oHtdysLpdgsvulKP3nBD3UxYVXpnrlfAYcep09kQkMw7cQZhxs6EH6X0Nzw93n
9q2yM6/hmdXtDBajKhkL2XJ3
-----END PRIVATE KEY-----
"""
    static let providerPublicKey = """
-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAs6Z6/MKEd3WJ9GI4r930
PFkHxYlfCCd64ejoufC4pg9SlQo+OxUMRX9ksoSRrT6sMWymAOKzLXFmokb3wSCL
LK97dH1PYRyeQ5FH86wSGX/M86HHXo094sMPL/O2HqBnWPUmj2nNfwUuSFepcH7H
gU6/yXfB3wcU2Slamk+UAmwAitcrLE3S9vraoMbY0BDOLCBPDkpO3rJXnn84MmTA
tQABlWZLiO8CE+5qBSZhDDvm8i2PrUzXjy0F3bJYevQ0iIOPMZOsiB0PdABOrthH
4UKz82XUjvwzbmMtdDyhin74whjWMUXQ34A52LVnviSyoYdSQPwTL5komeeIrYH7
HQIDAQAB
-----END PUBLIC KEY-----
"""
    /// A key the provider never published.
    static let otherKey = """
-----BEGIN PRIVATE KEY-----
MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQCqZMV2gb7a8mpW
vKPjbs02Eorgvud3dEOr17Fpg2bHFNLz23ZjrDlJSVAmc+cxvldmDtwvJa809v4D
B9jSaXYocKchLU6/m1o4P6qtSjxcB0ljkMbmMIM0efFKtr03pUTWIMs4j01YPW4T
+JON2OCcXWN6ajLOMpJxrH3vu6LMJNf+0iaGYEz0K3/bRLdSn7ZqL6kZjDpRFe9C
FobmAvYHbsF2HdnG/RPiCe51l/nt48W3JBkzFbszzJ39z/bYDrn6n+cXEh1J9Ck9
CMx5YwOzrxsKU2LFYd7th8FPlce7C3I798T8Vk5MiXWnStvmtVU46Fp3wW9EeZDZ
xb/zptI3AgMBAAECggEAEzgKjbNUs51kISRl1+FHhDHTOEZQFUkn2NobSKtpjErt
AFRgph1m2L1MLQolqZauhPRoIWk+udqiC/V2n0UF7snGEBfsKfB73JxRw/n7lOW9
gV1zEcOnCOQ4MxUpgn1BpmVMhrSjJLDJGbeP7Q/pRbnC3qvbzyYlHm02RzQCyMOv
+6IVLxJYsBjmq/kWOQREBdT4APU2dQcqn8taqyw1oNDwfTS9OhhELSekwQrbHyZB
fG/396cexFoBSqj0sL9YsOapOCqiWVy+RiLLt+rJVPqtkZqFg75pr678BIssXxE8
ZsYJvoB7FC2h8miML1cKmZDZha25+KbuVcEe5tN2AQKBgQDRyoHDy3aYtkw4d18f
j34qymuwVKYKpT295yQBpCwIKS5FLuGCnTf3sEVobUbfBjkx+e4SUVZbDanlV/PR
8ZEbkHEzHVyvajk1kbtv5G3Da05NZlVIwwH6CvgK9czk6CFXnvSTYFZNGCp6aq62
fCZcB9YJITCHUlomtbjaagA/DwKBgQDP7MMPBOc4CS0sn7/WTdmdAYgz2psfzSxu
EQsX3vgl78GMaWjcvqLQpbjSMv86smx+lu1JHIPc+ypIjjt5V/Gn03x7fx3K05I8
tljvDPmkB/ZTT3y/MeRqffd68EEYxbLZgTjsvgA6Heeik8vZOssHBgIkOpwAGxiF
9hPwWEC6WQKBgEC6x/EejRgvXzMo+cumHZqcXD/KznSIaZV3hO+QtRlLg4BLJ7+C
POuKks/Wr8BOjkUyRVeXixqLC7m8unkznL8xgQvxalChaMdzkK7Ef22FZWKSSYwq
xyhcTA4tqyuRx//eBr6WQeqFo02kLwYVJkzNCihE+lE2gqRg+4lAnZTXAoGALOSL
wQRn/9tLW6UqQFUStSmNhNSgRZ+BBkq7wG2t2lMH0Q85SuAGO1Jss0W7gargbfyc
QvrbJa09FelPwgVQ8dFhwTBS+GXx3xXn4cVFaTsm3hn9bzKQhMWp12tkQrr8wKV7
6vGjDulCCAItMzvUdjG/6J6W7Bbtlo7pAy2q3BECgYBJD0hD7ZHJ56169ZlLjKT/
dSVSpVcM5vXe2eTMoB9H2GF548VoubmhbDGYWrjcS/UfG5iTvLIwldGvgBXzM2Yg
j9mA+z5CKwA1+9WfQ9CBhC6n83oRLXA2COvgrpg/fU5fw85t+34n0uoANJjGxOxj
qZ42g990DVz/zGUsA92mAA==
-----END PRIVATE KEY-----
"""

    let check = IDTokenCheck(provider: .apple, issuers: ["https://appleid.apple.com"], audiences: ["com.example.pacenote"])
    let now: Int64 = 1_800_000_000

    func claims(_ changes: [String: Any] = [:], dropping: [String] = []) -> [String: Any] {
        var claims: [String: Any] = ["iss": "https://appleid.apple.com", "aud": "com.example.pacenote", "sub": "001234.abcdef",
                                     "exp": now + 600, "iat": now - 10, "email": "kalle@privaterelay.appleid.com", "email_verified": "true"]
        for (key, value) in changes { claims[key] = value }
        for key in dropping { claims[key] = nil }
        return claims
    }

    func token(_ claims: [String: Any], header: [String: Any] = ["alg": "RS256", "kid": "K1"], pem: String = providerKey) throws -> String {
        try JWT.sign(header: Array(try JSONSerialization.data(withJSONObject: header, options: .sortedKeys)),
                     claims: Array(try JSONSerialization.data(withJSONObject: claims, options: .sortedKeys)),
                     with: try SigningKey(pem: pem, algorithm: .rs256))
    }

    var key: VerifyingKey { get throws { try VerifyingKey(pem: Self.providerPublicKey, algorithm: .rs256) } }

    func refusal(_ token: String, key: VerifyingKey?, nonce: String? = nil) -> String? {
        do {
            _ = try check.verify(token, key: key, now: now, nonce: nonce)
            return nil
        } catch {
            if case .invalidToken(let reason) = error { return reason }
            return "\(error)"
        }
    }

    @Test func aGoodTokenNamesItsSubject() throws {
        let identity = try check.verify(try token(claims()), key: try key, now: now, nonce: nil)
        #expect(identity == VerifiedIdentity(provider: .apple, subject: "001234.abcdef", email: "kalle@privaterelay.appleid.com",
                                             emailVerified: true, name: nil))
        #expect(IDTokenCheck.keyID(of: try token(claims())) == "K1")
        // An audience list holding this app's id, and a token 30 s past expiry (within leeway).
        #expect(refusal(try token(claims(["aud": ["other.app", "com.example.pacenote"]])), key: try key) == nil)
        #expect(refusal(try token(claims(["exp": now - 30])), key: try key) == nil)
    }

    @Test func forgedAndForeignTokensAreRefused() throws {
        let key = try key
        let payload = Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: claims())))
        // alg none: no signature at all.
        let none = Base64URL.encode(Array(#"{"alg":"none","kid":"K1"}"#.utf8)) + "." + payload + "."
        #expect(refusal(none, key: key) == "alg is not RS256")
        // HS256 with the provider's public key (which anyone can fetch) as the HMAC secret.
        let hsInput = Base64URL.encode(Array(#"{"alg":"HS256","kid":"K1"}"#.utf8)) + "." + payload
        let mac = HMACKey(bytes: Array(Self.providerPublicKey.utf8)).authenticationCode(for: Array(hsInput.utf8))
        #expect(refusal(hsInput + "." + Base64URL.encode(mac), key: key) == "alg is not RS256")
        // Signed by a key the provider never published, under a kid it did.
        #expect(refusal(try token(claims(), pem: Self.otherKey), key: key) == "signature")
        // A kid not in the set.
        #expect(refusal(try token(claims()), key: nil) == "kid not in the provider's keys")
        #expect(refusal(try token(claims(["iss": "https://accounts.google.com"])), key: key) == "issuer")
        #expect(refusal(try token(claims(["aud": "com.someone.else"])), key: key) == "audience", "another app's token")
        #expect(refusal(try token(claims(["exp": now - 61])), key: key) == "expired")
        #expect(refusal(try token(claims(dropping: ["exp"])), key: key) == "expired", "no expiry is no good")
        #expect(refusal(try token(claims(["iat": now + 3_600])), key: key) == "issued in the future")
        #expect(refusal(try token(claims(["sub": ""])), key: key) == "no subject")
        #expect(refusal("a.b", key: key) == "not a compact JWS")
        #expect(refusal(String(repeating: "a", count: 9_000), key: key) == "token too long")
    }

    @Test func theNonceMustBeTheHashOfWhatTheAppSentAndTravelsOnToBeUsedOnce() throws {
        let key = try key
        let raw = "n-0S6_WzA2Mj"
        let hashed = Hex.encode(SHA256.hash(raw))
        let identity = try check.verify(try token(claims(["nonce": hashed])), key: key, now: now, nonce: raw)
        #expect(identity.nonce == OneTimeNonce(claim: hashed, expiresAtMillis: (now + 600 + 60) * 1_000), "Apple's SHA-256 form, kept until exp + leeway")
        // The claim itself, sent back as the nonce: whoever holds the token has it (issue 43).
        #expect(refusal(try token(claims(["nonce": raw])), key: key, nonce: raw) == "nonce")
        #expect(refusal(try token(claims(["nonce": "replayed"])), key: key, nonce: raw) == "nonce")
        #expect(refusal(try token(claims()), key: key, nonce: raw) == "nonce", "a nonce sent but none in the token")
        // Without a nonce from the app the token still carries its claim on, to be used up once.
        #expect(try check.verify(try token(claims(["nonce": hashed])), key: key, now: now, nonce: nil).nonce?.claim == hashed)
        #expect(try check.verify(try token(claims()), key: key, now: now, nonce: nil).nonce == nil)
    }

    @Test func aTokenNotYetValidOrWithCriticalExtensionsIsRefused() throws {
        let key = try key
        #expect(refusal(try token(claims(["nbf": now + 3_600])), key: key) == "not yet valid")
        #expect(refusal(try token(claims(["nbf": now + 30])), key: key) == nil, "within the leeway")
        #expect(refusal(try token(claims(["nbf": now - 30])), key: key) == nil)
        #expect(refusal(try token(claims(), header: ["alg": "RS256", "kid": "K1", "crit": ["exp"]]), key: key) == "crit header")
        #expect(refusal(try token(claims(), header: ["alg": "RS256", "kid": "K1", "crit": []]), key: key) == "crit header")
    }
}
