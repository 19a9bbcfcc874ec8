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

    /// An RSA public key from its modulus and public exponent, big-endian, as a JSON Web Key
    /// carries them (`n`, `e`, RFC 7518 §6.3.1): what sign-in providers publish in their JWKS.
    ///
    /// The key is handed to OpenSSL as the DER SubjectPublicKeyInfo those two numbers make
    /// (`d2i_PUBKEY`), so OpenSSL's own parser checks it, not ours.
    ///
    /// - Throws: `SigningError.invalidKey` for a modulus under 2048 bits (RFC 7518 §3.3: a
    ///   smaller one is refused), an even or absurd exponent, or bytes OpenSSL does not take.
    public convenience init(rsaModulus modulus: [UInt8], exponent: [UInt8]) throws(SigningError) {
        let modulus = Array(modulus.drop { $0 == 0 })
        let exponent = Array(exponent.drop { $0 == 0 })
        guard modulus.count >= 256, modulus.count <= 2_048, let last = exponent.last, last & 1 == 1, exponent.count <= 8 else {
            throw .invalidKey(function: "VerifyingKey(rsaModulus:exponent:)", expected: "an RSA key of 2048 bits or more")
        }
        let rsaPublicKey = DER.sequence(DER.integer(modulus) + DER.integer(exponent))
        // AlgorithmIdentifier: rsaEncryption (1.2.840.113549.1.1.1), NULL parameters.
        let algorithm = DER.sequence([0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00])
        let info = DER.sequence(algorithm + DER.bitString(rsaPublicKey))
        let parsed: OpaquePointer? = info.withUnsafeBufferPointer { buffer in
            // Unsafe pointer: d2i_PUBKEY reads `buffer` during this closure and keeps no reference.
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let parsed else {
            ERR_clear_error()
            throw .invalidKey(function: "d2i_PUBKEY", expected: "an RSA public key")
        }
        self.init(key: parsed, algorithm: .rs256)
    }

    private init(key: OpaquePointer, algorithm: SignatureAlgorithm) {
        self.key = key
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

/// The few DER encodings an RSA SubjectPublicKeyInfo needs (X.690).
private enum DER {
    static func length(_ count: Int) -> [UInt8] {
        guard count >= 0x80 else { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    static func sequence(_ content: [UInt8]) -> [UInt8] { [0x30] + length(content.count) + content }

    /// A non-negative INTEGER from big-endian bytes without leading zeros.
    static func integer(_ magnitude: [UInt8]) -> [UInt8] {
        let content = (magnitude.first ?? 0) & 0x80 != 0 ? [0] + magnitude : magnitude
        return [0x02] + length(content.count) + content
    }

    static func bitString(_ content: [UInt8]) -> [UInt8] { [0x03] + length(content.count + 1) + [0x00] + content }
}

