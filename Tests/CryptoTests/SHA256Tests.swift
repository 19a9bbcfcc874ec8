import Crypto
import Testing

@Suite struct SHA256Tests {
    @Test func emptyStringMatchesFIPSVector() {
        #expect(Hex.encode(SHA256.hash("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func abcMatchesFIPSVector() {
        #expect(Hex.encode(SHA256.hash("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func bytesAndStringOverloadsAgree() {
        let text = "session-token-ünïcode"
        #expect(SHA256.hash(text) == SHA256.hash(Array(text.utf8)))
        // A non-contiguous collection takes the copying path and must give the same digest.
        #expect(SHA256.hash(Array(text.utf8).reversed().reversed()) == SHA256.hash(text))
        #expect(SHA256.hash(text).count == 32)
    }
}
