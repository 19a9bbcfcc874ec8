/// Bits of an HEVC parameter set, most significant first, with Exp-Golomb codes (H.265 9.2).
/// Reads past the end throw: a truncated SPS is refused, not guessed.
struct BitReader {
    private let bytes: [UInt8]
    private var bit = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func bits(_ count: Int) throws(ImagingError) -> Int {
        precondition(count <= 32)
        var value = 0
        for _ in 0..<count {
            guard bit < bytes.count * 8 else { throw .undecodable }
            value = value << 1 | Int(bytes[bit >> 3] >> (7 - UInt8(bit & 7)) & 1)
            bit += 1
        }
        return value
    }

    mutating func flag() throws(ImagingError) -> Bool { try bits(1) == 1 }

    mutating func skip(_ count: Int) throws(ImagingError) {
        guard count >= 0, bit + count <= bytes.count * 8 else { throw .undecodable }
        bit += count
    }

    /// ue(v). More than 31 leading zeros is no value a picture header holds (refused).
    mutating func exponentialGolomb() throws(ImagingError) -> Int {
        var zeros = 0
        while try bits(1) == 0 {
            zeros += 1
            guard zeros <= 31 else { throw .undecodable }
        }
        return (1 << zeros) - 1 + (try bits(zeros))
    }

    /// The RBSP of a NAL unit: its `00 00 03` emulation-prevention bytes removed.
    static func rbsp(_ nal: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(nal.count)
        var zeros = 0
        for byte in nal {
            if zeros >= 2 && byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            out.append(byte)
        }
        return out
    }
}
