import COpenSSL

/// A public key read from a PEM (`-----BEGIN PUBLIC KEY-----`), to check JWS signatures.
///
/// Pacenote itself only signs; this is what a receiver does with our tokens, and the tests use it
/// to prove that what we sign verifies with the public half of the key.
public final class VerifyingKey: Sendable {
    // Sendable: `key` is set once and freed in deinit; verifying does not change an EVP_PKEY,
    // which OpenSSL 3 allows from several threads (crypto(7), "Threads").
    nonisolated(unsafe) private let key: OpaquePointer
    public let algorithm: SignatureAlgorithm

    /// - Throws: `SigningError.invalidKey` when the text is not a PEM public key of the
    ///   algorithm's type.
    public init(pem: String, algorithm: SignatureAlgorithm) throws(SigningError) {
        let parsed: OpaquePointer? = withContiguousBytes(Array(pem.utf8)) { bytes in
            // Unsafe pointer: the BIO reads `bytes` only during this closure and is freed in it.
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(clamping: bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        guard let parsed else {
            ERR_clear_error()
            throw .invalidKey(function: "PEM_read_bio_PUBKEY", expected: "\(algorithm.keyType) public key")
        }
        guard EVP_PKEY_is_a(parsed, algorithm.keyType) == 1 else {
            EVP_PKEY_free(parsed)
            throw .invalidKey(function: "EVP_PKEY_is_a", expected: "\(algorithm.keyType) public key")
        }
        key = parsed
        self.algorithm = algorithm
    }

    deinit { EVP_PKEY_free(key) }

    /// Whether `signature` (JWS form: raw `r || s` for ES256) signs `data` under this key.
    /// Anything malformed is simply not valid.
    public func isValidSignature(_ signature: [UInt8], for data: some Collection<UInt8>) -> Bool {
        let encoded: [UInt8]
        switch algorithm {
        case .rs256: encoded = signature
        case .es256:
            guard let der = ECDSASignature.derFromRaw(signature) else { return false }
            encoded = der
        }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, MessageDigest.sha256.handle, nil, key) == 1 else {
            ERR_clear_error()
            return false
        }
        let result = withContiguousBytes(data) { input in
            encoded.withUnsafeBufferPointer { sig in
                // Unsafe pointers: both buffers are valid during these closures.
                EVP_DigestVerify(context, sig.baseAddress, sig.count, input.baseAddress, input.count)
            }
        }
        ERR_clear_error()
        return result == 1
    }
}
