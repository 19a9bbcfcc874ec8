import COpenSSL

/// Cryptographically secure random bytes and identifiers, from OpenSSL's `RAND_bytes`.
///
/// Safe to call from any thread: OpenSSL 3 keeps one DRBG per thread.
public enum SecureRandom {
    /// Returns `count` bytes from OpenSSL's CSPRNG (`RAND_bytes`).
    ///
    /// - Precondition: `count >= 0`.
    /// - Throws: `CryptoError.randomFailed(function: "RAND_bytes")` if OpenSSL cannot produce
    ///   bytes (for example its entropy source is unavailable). Never returns weak bytes.
    public static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        precondition(count >= 0, "SecureRandom.bytes: negative count")
        var result = [UInt8](repeating: 0, count: count)
        var failed = false
        result.withUnsafeMutableBufferPointer { buffer in
            // `RAND_bytes` takes an `int` length, so large requests are filled in chunks.
            var offset = 0
            while offset < count {
                let chunk = min(count - offset, Int(Int32.max))
                // Unsafe pointer: `buffer` is the array's own storage, valid for the whole closure;
                // `offset + chunk <= count` keeps the write inside it.
                guard let base = buffer.baseAddress,
                      RAND_bytes(base + offset, Int32(chunk)) == 1
                else {
                    failed = true
                    return
                }
                offset += chunk
            }
        }
        if failed {
            throw .randomFailed(function: "RAND_bytes")
        }
        return result
    }

    /// The 62 characters of a Parse-style objectId, in ASCII order.
    private static let alphabet: [UInt8] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// The largest multiple of 62 that fits in a byte (62 × 4 = 248). Bytes at or above it are
    /// rejected, so that every character is drawn with probability exactly 1/62.
    private static let rejectionLimit: UInt8 = 248

    /// Returns a random identifier shaped like a Parse objectId: `length` characters from
    /// `[0-9A-Za-z]`, each chosen uniformly (rejection sampling, not modulo).
    ///
    /// With the default length of 10 there are 62^10 ≈ 8.4 × 10^17 ids (about 59.5 bits).
    ///
    /// - Precondition: `length >= 0`.
    /// - Throws: `CryptoError.randomFailed(function: "RAND_bytes")` if OpenSSL cannot produce bytes.
    public static func alphanumericID(length: Int = 10) throws(CryptoError) -> String {
        precondition(length >= 0, "SecureRandom.alphanumericID: negative length")
        var characters: [UInt8] = []
        characters.reserveCapacity(length)
        while characters.count < length {
            // 248/256 of bytes are accepted; ask for a little more than needed so one round
            // almost always suffices.
            let missing = length - characters.count
            let pool = try bytes(missing + missing / 8 + 4)
            for byte in pool where byte < rejectionLimit {
                characters.append(alphabet[Int(byte % 62)])
                if characters.count == length { break }
            }
        }
        return String(decoding: characters, as: UTF8.self)
    }
}
