import COpenSSL

/// The JWS algorithms Pacenote signs with (RFC 7518 §3.1).
public enum SignatureAlgorithm: String, Sendable {
    /// ECDSA on P-256 with SHA-256: APNs provider tokens (an Apple `.p8` key).
    case es256 = "ES256"
    /// RSASSA-PKCS1-v1_5 with SHA-256: Google service-account assertions.
    case rs256 = "RS256"

    /// The OpenSSL key type this algorithm needs (`EVP_PKEY_is_a` name).
    var keyType: String {
        switch self {
        case .es256: "EC"
        case .rs256: "RSA"
        }
    }
}

/// A private key read from a PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), for one JWS algorithm.
///
/// Thread-safe: OpenSSL 3 allows concurrent signing with one `EVP_PKEY` (each call has its own
/// `EVP_MD_CTX`). The key never appears in `description`, `debugDescription` or `dump()`.
public final class SigningKey: Sendable {
    // Sendable: `key` is set once and freed in deinit; OpenSSL 3 documents EVP_PKEY as safe to
    // use from several threads for operations that do not change it (crypto(7), "Threads").
    nonisolated(unsafe) private let key: OpaquePointer
    /// The algorithm this key signs with.
    public let algorithm: SignatureAlgorithm

    /// Reads a PEM private key and checks that it suits `algorithm` (an EC key on P-256 for
    /// ES256, an RSA key of at least 2048 bits for RS256).
    ///
    /// - Throws: `SigningError.invalidKey` when the text is not a PEM private key of that kind.
    public init(pem: String, algorithm: SignatureAlgorithm) throws(SigningError) {
        let expected = algorithm == .es256 ? "EC P-256 private key" : "RSA private key"
        let parsed: OpaquePointer? = withContiguousBytes(Array(pem.utf8)) { bytes in
            // Unsafe pointer: the BIO reads `bytes` only during this closure and is freed in it.
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(clamping: bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let parsed else {
            ERR_clear_error()
            throw .invalidKey(function: "PEM_read_bio_PrivateKey", expected: expected)
        }
        let bits = EVP_PKEY_get_bits(parsed)
        let suits = EVP_PKEY_is_a(parsed, algorithm.keyType) == 1
            && (algorithm == .es256 ? bits == 256 : bits >= 2048)
        guard suits else {
            EVP_PKEY_free(parsed)
            throw .invalidKey(function: "EVP_PKEY_is_a", expected: expected)
        }
        key = parsed
        self.algorithm = algorithm
    }

    deinit { EVP_PKEY_free(key) }

    /// Returns the JWS signature of `data`: for ES256 the 64-byte `r || s` (RFC 7518 §3.4), not
    /// OpenSSL's DER; for RS256 the RSA signature, as long as the modulus.
    public func sign(_ data: some Collection<UInt8>) throws(SigningError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw .signFailed(function: "EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, MessageDigest.sha256.handle, nil, key) == 1 else {
            ERR_clear_error()
            throw .signFailed(function: "EVP_DigestSignInit")
        }
        let signature: [UInt8]? = withContiguousBytes(data) { input in
            var length = 0
            // Unsafe pointers: `input` is valid during the closure; the first call only asks
            // for the maximum signature length, the second writes at most that many bytes.
            guard EVP_DigestSign(context, nil, &length, input.baseAddress, input.count) == 1 else { return nil }
            var output = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSign(context, &output, &length, input.baseAddress, input.count) == 1 else { return nil }
            return Array(output.prefix(length))
        }
        guard let signature else {
            ERR_clear_error()
            throw .signFailed(function: "EVP_DigestSign")
        }
        switch algorithm {
        case .rs256: return signature
        case .es256: return try ECDSASignature.rawFromDER(signature)
        }
    }
}

extension SigningKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Names the algorithm only: a key must never reach a log line.
    public var description: String { "SigningKey(\(algorithm.rawValue), redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
