import COpenSSL

/// Converts ECDSA P-256 signatures between OpenSSL's DER (`SEQUENCE { r INTEGER, s INTEGER }`)
/// and JWS's fixed 64-byte `r || s` (RFC 7518 §3.4), where each integer is left-padded to 32 bytes.
enum ECDSASignature {
    static let coordinateBytes = 32

    static func rawFromDER(_ der: [UInt8]) throws(SigningError) -> [UInt8] {
        let raw: [UInt8]? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            // Unsafe pointer: d2i reads at most `buffer.count` bytes from the array's storage.
            guard let signature = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else { return nil }
            defer { ECDSA_SIG_free(signature) }
            var r: OpaquePointer?
            var s: OpaquePointer?
            ECDSA_SIG_get0(signature, &r, &s)
            var out = [UInt8](repeating: 0, count: 2 * coordinateBytes)
            let ok = out.withUnsafeMutableBufferPointer { output -> Bool in
                // Unsafe pointers: each BN_bn2binpad writes exactly 32 bytes, into the first and
                // second halves of the 64-byte buffer; it fails if a value needs more.
                guard let base = output.baseAddress else { return false }
                return BN_bn2binpad(r, base, Int32(coordinateBytes)) == Int32(coordinateBytes)
                    && BN_bn2binpad(s, base + coordinateBytes, Int32(coordinateBytes)) == Int32(coordinateBytes)
            }
            return ok ? out : nil
        }
        guard let raw else {
            ERR_clear_error()
            throw .signFailed(function: "d2i_ECDSA_SIG")
        }
        return raw
    }

    /// The DER form of a 64-byte `r || s`, or nil when it is not 64 bytes.
    static func derFromRaw(_ raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 2 * coordinateBytes, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32(coordinateBytes), nil) }
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress.map { $0 + coordinateBytes }, Int32(coordinateBytes), nil) }
        // ECDSA_SIG_set0 takes ownership of r and s when it succeeds.
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        var output: UnsafeMutablePointer<UInt8>?
        let length = i2d_ECDSA_SIG(signature, &output)
        guard length > 0, let output else { return nil }
        defer { CRYPTO_free(output, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }
}
