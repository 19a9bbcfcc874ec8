import Crypto
import Testing

@Suite struct SecureRandomTests {
    @Test func bytesHaveRequestedCountAndDiffer() throws {
        #expect(try SecureRandom.bytes(0).isEmpty)
        let a = try SecureRandom.bytes(32)
        let b = try SecureRandom.bytes(32)
        #expect(a.count == 32)
        #expect(a != b)
    }

    @Test func idsLookLikeParseObjectIds() throws {
        let allowed = Set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        for _ in 0..<1_000 {
            let id = try SecureRandom.alphanumericID()
            #expect(id.utf8.count == 10)
            #expect(id.utf8.allSatisfy(allowed.contains))
        }
        #expect(try SecureRandom.alphanumericID(length: 0) == "")
        #expect(try SecureRandom.alphanumericID(length: 300).utf8.count == 300)
    }

    @Test func tenThousandIdsAreDistinct() throws {
        var seen = Set<String>()
        for _ in 0..<10_000 {
            seen.insert(try SecureRandom.alphanumericID())
        }
        #expect(seen.count == 10_000)
    }

    @Test func idsAreUnbiased() throws {
        // 620,000 characters: each of the 62 should appear 10,000 ± 100 (one standard deviation)
        // times. Taking `byte % 62` without rejection would draw "0"..."7" 5/4 as often as the
        // rest (~12,100 times each). The bounds are 6 standard deviations wide, so they never
        // fail by chance, yet catch that bias or a character that is never drawn.
        let text = try SecureRandom.alphanumericID(length: 620_000)
        var counts: [UInt8: Int] = [:]
        for byte in text.utf8 { counts[byte, default: 0] += 1 }
        #expect(counts.count == 62)
        #expect(counts.values.allSatisfy { (9_400...10_600).contains($0) })
    }
}

@Suite struct ConstantTimeEqualsTests {
    @Test func comparesContentsAndLength() {
        #expect(constantTimeEquals([1, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(!constantTimeEquals([1, 2, 3] as [UInt8], [1, 2, 4] as [UInt8]))
        #expect(!constantTimeEquals([1, 2, 3] as [UInt8], [1, 2] as [UInt8]))
        #expect(!constantTimeEquals([UInt8](), [0] as [UInt8]))
        #expect(constantTimeEquals([UInt8](), [UInt8]()))
        #expect(constantTimeEquals("$2b$10$abc".utf8, Array("$2b$10$abc".utf8)))
        #expect(!constantTimeEquals("$2b$10$abc".utf8, "$2b$10$abd".utf8))
    }
}
