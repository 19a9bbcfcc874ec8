/// Base64 with the URL- and filename-safe alphabet (RFC 4648 §5), without padding.
///
/// Used for session tokens and feed cursors, which travel in URLs and headers.
public enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Marks a byte that is not in the alphabet.
    private static let invalid: UInt8 = 0xFF

    /// Maps every byte to its 6-bit value, or `invalid`.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (value, character) in alphabet.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }()

    /// Returns the unpadded base64url text of `bytes` (4 characters per 3 bytes, rounded up).
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        withContiguousBytes(bytes) { input in
            let fullGroups = input.count / 3
            let remainder = input.count % 3
            let outputCount = fullGroups * 4 + (remainder == 0 ? 0 : remainder + 1)
            return alphabet.withUnsafeBufferPointer { table in
                String(unsafeUninitializedCapacity: outputCount) { output in
                    // Unsafe pointers: `input` and `table` are valid inside the closures; every
                    // index below is < input.count, < 64, or < outputCount (the capacity).
                    var i = 0
                    var o = 0
                    for _ in 0..<fullGroups {
                        let b0 = UInt32(input[i]), b1 = UInt32(input[i + 1]), b2 = UInt32(input[i + 2])
                        let group = b0 << 16 | b1 << 8 | b2
                        output[o] = table[Int(group >> 18 & 0x3F)]
                        output[o + 1] = table[Int(group >> 12 & 0x3F)]
                        output[o + 2] = table[Int(group >> 6 & 0x3F)]
                        output[o + 3] = table[Int(group & 0x3F)]
                        i += 3
                        o += 4
                    }
                    if remainder == 1 {
                        let b0 = UInt32(input[i])
                        output[o] = table[Int(b0 >> 2)]
                        output[o + 1] = table[Int(b0 << 4 & 0x3F)]
                        o += 2
                    } else if remainder == 2 {
                        let b0 = UInt32(input[i]), b1 = UInt32(input[i + 1])
                        output[o] = table[Int(b0 >> 2)]
                        output[o + 1] = table[Int((b0 << 4 | b1 >> 4) & 0x3F)]
                        output[o + 2] = table[Int(b1 << 2 & 0x3F)]
                        o += 3
                    }
                    return o
                }
            }
        }
    }

    /// Decodes unpadded base64url text, or returns `nil` if `s` is not exactly what `encode`
    /// would produce for some bytes.
    ///
    /// Refused: any character outside `A–Z a–z 0–9 - _` (including `=`, `+`, `/`, whitespace),
    /// a length of 4n+1 (no byte sequence encodes to it), and non-zero unused bits in the last
    /// character, so every byte sequence has exactly one accepted spelling and a tampered
    /// token cannot be re-spelled to look new.
    public static func decode(_ s: String) -> [UInt8]? {
        withContiguousBytes(s.utf8) { input -> [UInt8]? in
            let fullGroups = input.count / 4
            let remainder = input.count % 4
            if remainder == 1 { return nil }
            let outputCount = fullGroups * 3 + (remainder == 0 ? 0 : remainder - 1)
            return decodeTable.withUnsafeBufferPointer { table -> [UInt8]? in
                var valid = true
                let result = [UInt8](unsafeUninitializedCapacity: outputCount) { output, initialized in
                    // Unsafe pointers: `input` and `table` are valid inside the closures; input
                    // indices are < input.count, table indices are bytes (< 256), output indices
                    // are < outputCount (the capacity). `initialized` is set to what was written.
                    var i = 0
                    var o = 0
                    for _ in 0..<fullGroups {
                        let c0 = table[Int(input[i])], c1 = table[Int(input[i + 1])]
                        let c2 = table[Int(input[i + 2])], c3 = table[Int(input[i + 3])]
                        // `invalid` is 0xFF; any valid value is < 64, so one OR finds a bad one.
                        if (c0 | c1 | c2 | c3) & 0xC0 != 0 {
                            valid = false
                            break
                        }
                        let group = UInt32(c0) << 18 | UInt32(c1) << 12 | UInt32(c2) << 6 | UInt32(c3)
                        output[o] = UInt8(truncatingIfNeeded: group >> 16)
                        output[o + 1] = UInt8(truncatingIfNeeded: group >> 8)
                        output[o + 2] = UInt8(truncatingIfNeeded: group)
                        i += 4
                        o += 3
                    }
                    if valid && remainder == 2 {
                        let c0 = table[Int(input[i])], c1 = table[Int(input[i + 1])]
                        if (c0 | c1) & 0xC0 != 0 || c1 & 0x0F != 0 {
                            valid = false
                        } else {
                            output[o] = c0 << 2 | c1 >> 4
                            o += 1
                        }
                    } else if valid && remainder == 3 {
                        let c0 = table[Int(input[i])], c1 = table[Int(input[i + 1])], c2 = table[Int(input[i + 2])]
                        if (c0 | c1 | c2) & 0xC0 != 0 || c2 & 0x03 != 0 {
                            valid = false
                        } else {
                            output[o] = c0 << 2 | c1 >> 4
                            output[o + 1] = c1 << 4 | c2 >> 2
                            o += 2
                        }
                    }
                    initialized = o
                }
                return valid ? result : nil
            }
        }
    }
}
