/// A failure reported by OpenSSL, naming the C function that failed.
///
/// The description carries only the function name, never the bytes that were being processed.
public enum CryptoError: Error, Sendable, Equatable {
    /// The random number generator refused to produce bytes (for example `RAND_bytes` returned 0).
    case randomFailed(function: String)
    /// A digest or MAC computation failed inside OpenSSL.
    case digestFailed(function: String)
}
