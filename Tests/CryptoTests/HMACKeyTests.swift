import Crypto
import Testing

@Suite struct HMACKeyTests {
    /// RFC 4231, test case 2: key "Jefe", data "what do ya want for nothing?".
    @Test func rfc4231TestCase2() {
        let key = HMACKey(bytes: Array("Jefe".utf8))
        let code = key.authenticationCode(for: Array("what do ya want for nothing?".utf8))
        #expect(Hex.encode(code) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    /// RFC 4231, test case 6: a 131-byte key, longer than the block size, is hashed first.
    @Test func rfc4231TestCase6LongKey() {
        let key = HMACKey(bytes: [UInt8](repeating: 0xAA, count: 131))
        let code = key.authenticationCode(for: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
        #expect(Hex.encode(code) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func emptyKeyAndEmptyMessage() {
        let code = HMACKey(bytes: []).authenticationCode(for: [UInt8]())
        #expect(Hex.encode(code) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test func validatesOwnCodesAndRejectsTampering() throws {
        let key = HMACKey(bytes: try SecureRandom.bytes(32))
        let cursor = Array("2024-05-01T10:00:00Z|abc123".utf8)
        var code = key.authenticationCode(for: cursor)
        #expect(key.isValid(code, for: cursor))
        #expect(!key.isValid(code, for: Array("2024-05-01T10:00:00Z|abc124".utf8)))
        #expect(!key.isValid(code.dropLast(), for: cursor))
        #expect(!key.isValid([UInt8](), for: cursor))
        code[31] ^= 1
        #expect(!key.isValid(code, for: cursor))
        let otherKey = HMACKey(bytes: try SecureRandom.bytes(32))
        #expect(!otherKey.isValid(key.authenticationCode(for: cursor), for: cursor))
    }

    @Test func keyIsRedactedEverywhere() {
        let key = HMACKey(bytes: Array("super-secret-key".utf8))
        #expect("\(key)" == "HMACKey(redacted)")
        #expect(String(reflecting: key) == "HMACKey(redacted)")
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains("115")) // "s" as a byte
        #expect(!dumped.contains("secret"))
    }
}
