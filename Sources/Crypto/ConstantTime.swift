import COpenSSL

/// Returns whether `a` and `b` hold the same bytes, in time that depends only on their length.
///
/// Uses OpenSSL's `CRYPTO_memcmp`, which the compiler cannot turn into an early-exit loop.
/// Collections of different lengths are unequal (the length itself is not treated as secret).
public func constantTimeEquals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    return withContiguousBytes(a) { left in
        withContiguousBytes(b) { right in
            // Unsafe pointers: both buffers are valid inside these closures and hold exactly
            // `left.count` bytes; with a count of 0 CRYPTO_memcmp reads nothing.
            CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0
        }
    }
}
