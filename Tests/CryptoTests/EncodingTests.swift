import Crypto
import Testing

@Suite struct Base64URLTests {
    /// RFC 4648 §10 vectors, in the URL alphabet and without padding.
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"),
        ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
    ])
    func rfc4648Vectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test func usesURLSafeAlphabet() {
        // 0xFB 0xFF would be "+/8" in standard base64.
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
    }

    @Test func roundTripsEveryLengthAndByte() throws {
        for length in 0...70 {
            let bytes = try SecureRandom.bytes(length)
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("="))
            #expect(Base64URL.decode(text) == bytes)
        }
        let all = (0...255).map(UInt8.init)
        #expect(Base64URL.decode(Base64URL.encode(all)) == all)
    }

    @Test(arguments: [
        "Zm9v=", "Zg==", "Zm8=",          // padding
        "Zm9+", "Zm9/",                   // standard-alphabet characters
        "Zm 9v", "Zm9v\n", " Zm9v",       // whitespace
        "Zm9vY", "A",                     // 4n+1: no byte sequence has this length
        "Zh", "Zm9",                      // non-zero unused bits (canonical: "Zg", "Zm8")
        "Zm9vé", "Zm9v\u{0}",             // non-ASCII, NUL
    ])
    func rejectsMalformedText(_ text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test func sessionTokenShape() throws {
        // A 256-bit token is 43 characters of URL-safe text.
        let token = Base64URL.encode(try SecureRandom.bytes(32))
        #expect(token.utf8.count == 43)
    }
}

@Suite struct HexTests {
    @Test func encodesLowercase() {
        #expect(Hex.encode([0x00, 0x01, 0xAB, 0xFF]) == "0001abff")
        #expect(Hex.encode([UInt8]()) == "")
    }

    @Test func roundTripsAndAcceptsUppercase() throws {
        let bytes = try SecureRandom.bytes(64)
        #expect(Hex.decode(Hex.encode(bytes)) == bytes)
        #expect(Hex.decode("DEADbeef") == [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(Hex.decode("") == [])
    }

    @Test(arguments: ["abc", "0g", "0x00", "de ad", "zz", "é0", "-1"])
    func rejectsMalformedText(_ text: String) {
        #expect(Hex.decode(text) == nil)
    }
}
