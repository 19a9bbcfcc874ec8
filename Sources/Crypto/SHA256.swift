import COpenSSL

/// SHA-256 through OpenSSL's EVP interface.
public enum SHA256 {
    /// The size of a SHA-256 digest, in bytes.
    public static let byteCount = 32

    /// Returns the 32-byte SHA-256 digest of `data`.
    ///
    /// Thread-safe. Traps only if OpenSSL itself is broken (the digest cannot be computed with
    /// OpenSSL's default provider loaded), which is a deployment fault rather than bad input.
    public static func hash(_ data: some Collection<UInt8>) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let status = withContiguousBytes(data) { input in
            digest.withUnsafeMutableBufferPointer { output in
                // Unsafe pointers: `input` and `output` are valid for the duration of these
                // closures; `output` holds 32 bytes, exactly EVP_MD_get_size(SHA-256).
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, MessageDigest.sha256.handle, nil)
            }
        }
        guard status == 1, length == UInt32(byteCount) else {
            preconditionFailure("\(CryptoError.digestFailed(function: "EVP_Digest"))")
        }
        return digest
    }

    /// Returns the 32-byte SHA-256 digest of the UTF-8 bytes of `s`.
    public static func hash(_ s: String) -> [UInt8] {
        hash(s.utf8)
    }
}

/// A digest algorithm fetched once from OpenSSL and kept for the life of the process.
///
/// OpenSSL 3 documents that passing `EVP_sha256()` makes every call fetch the implementation again
/// from the provider store, under a lock ("Performance" in `crypto(7)`); fetching it explicitly
/// once avoids that on every session lookup.
struct MessageDigest: @unchecked Sendable {
    // @unchecked Sendable: a fetched EVP_MD is immutable and OpenSSL allows sharing it between
    // threads (crypto(7), "Fetching algorithms"); it is never freed, so the pointer never dangles.
    let handle: OpaquePointer

    /// SHA-256, explicitly fetched; falls back to the implicitly fetched `EVP_sha256()` if the
    /// explicit fetch fails, so a call never sees a null algorithm.
    static let sha256: MessageDigest = {
        if let fetched = EVP_MD_fetch(nil, "SHA256", nil) {
            return MessageDigest(handle: fetched)
        }
        guard let legacy = EVP_sha256() else {
            preconditionFailure("\(CryptoError.digestFailed(function: "EVP_sha256"))")
        }
        return MessageDigest(handle: legacy)
    }()
}
