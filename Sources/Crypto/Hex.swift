/// Hexadecimal text for bytes (two digits per byte).
public enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Returns the lowercase hexadecimal text of `bytes`, two characters per byte.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        withContiguousBytes(bytes) { input in
            digits.withUnsafeBufferPointer { table in
                String(unsafeUninitializedCapacity: input.count * 2) { output in
                    // Unsafe pointers: `input` and `table` are valid inside the closures; table
                    // indices are nibbles (< 16), output indices are < 2 × input.count (the capacity).
                    for (index, byte) in input.enumerated() {
                        output[2 * index] = table[Int(byte >> 4)]
                        output[2 * index + 1] = table[Int(byte & 0x0F)]
                    }
                    return input.count * 2
                }
            }
        }
    }

    /// Decodes hexadecimal text (upper- or lowercase digits), or returns `nil` for an odd length
    /// or any character that is not a hexadecimal digit (including whitespace and a `0x` prefix).
    public static func decode(_ s: String) -> [UInt8]? {
        withContiguousBytes(s.utf8) { input -> [UInt8]? in
            // Unsafe pointer: `input` is valid inside this closure; with an even count,
            // `index + 1 < input.count` for every index visited.
            guard input.count % 2 == 0 else { return nil }
            var result: [UInt8] = []
            result.reserveCapacity(input.count / 2)
            var index = 0
            while index < input.count {
                guard let high = nibble(input[index]), let low = nibble(input[index + 1]) else {
                    return nil
                }
                result.append(high << 4 | low)
                index += 2
            }
            return result
        }
    }

    @inline(__always)
    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
