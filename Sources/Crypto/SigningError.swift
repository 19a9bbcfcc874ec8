/// A failure reading a key or signing with it, naming the OpenSSL function that failed.
///
/// Kept apart from `CryptoError`, whose cases callers in other modules switch over exhaustively.
/// The description names the function and the kind of key expected, never key bytes.
public enum SigningError: Error, Sendable, Equatable {
    /// A PEM key could not be read, or is not of the kind asked for (`expected` says which).
    case invalidKey(function: String, expected: String)
    /// Signing failed inside OpenSSL.
    case signFailed(function: String)
}
