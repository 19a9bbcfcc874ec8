import COpenSSL

/// A secret key for HMAC-SHA256 (RFC 2104), as used for feed cursors and webhook signatures.
///
/// The key bytes never appear in `description`, `debugDescription` or `dump()`: all three print
/// `HMACKey(redacted)`.
public struct HMACKey: Sendable {
    private let bytes: [UInt8]

    /// Creates a key from raw bytes. Use at least 32 random bytes (`SecureRandom.bytes(32)`);
    /// keys longer than 64 bytes are hashed first, as RFC 2104 specifies.
    ///
    /// - Precondition: the key is shorter than 2 GiB (OpenSSL takes its length as an `int`).
    public init(bytes: [UInt8]) {
        precondition(bytes.count <= Int(Int32.max), "HMACKey: key longer than Int32.max bytes")
        self.bytes = bytes
    }

    /// Returns the 32-byte HMAC-SHA256 of `data` under this key.
    ///
    /// Thread-safe. Traps only if OpenSSL itself is broken, which is a deployment fault.
    public func authenticationCode(for data: some Collection<UInt8>) -> [UInt8] {
        var code = [UInt8](repeating: 0, count: SHA256.byteCount)
        var length: UInt32 = 0
        // An empty array may have no base address and OpenSSL refuses a null key, so an empty
        // key is passed as a pointer to one byte with a length of 0.
        let keyLength = bytes.count
        let keyStorage = bytes.isEmpty ? [0] : bytes
        let result = withContiguousBytes(data) { input in
            keyStorage.withUnsafeBufferPointer { key in
                code.withUnsafeMutableBufferPointer { output in
                    // Unsafe pointers: all three buffers are valid for the duration of these
                    // closures; `output` holds 32 bytes, the HMAC-SHA256 size; OpenSSL reads
                    // `keyLength` (<= key.count) and `input.count` bytes.
                    HMAC(
                        MessageDigest.sha256.handle,
                        key.baseAddress, Int32(keyLength),
                        input.baseAddress, input.count,
                        output.baseAddress, &length
                    ) != nil
                }
            }
        }
        guard result, length == UInt32(SHA256.byteCount) else {
            preconditionFailure("\(CryptoError.digestFailed(function: "HMAC"))")
        }
        return code
    }

    /// Returns whether `code` is the HMAC-SHA256 of `data` under this key.
    ///
    /// The comparison takes the same time wherever the first differing byte is, so a caller
    /// cannot find a valid code byte by byte. A code of the wrong length is simply invalid.
    public func isValid(_ code: some Collection<UInt8>, for data: some Collection<UInt8>) -> Bool {
        constantTimeEquals(authenticationCode(for: data), code)
    }
}

extension HMACKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Always `HMACKey(redacted)`: a key must never reach a log line.
    public var description: String { "HMACKey(redacted)" }

    /// Always `HMACKey(redacted)`: a key must never reach a log line.
    public var debugDescription: String { "HMACKey(redacted)" }

    /// A mirror with no children, so `dump()` cannot print the key bytes either.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
