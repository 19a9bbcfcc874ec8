import Crypto

/// A session token as the client holds it: 256 random bits, base64url.
///
/// Only `storageKey` (the hex SHA-256) is ever written to the database, so a leaked
/// database leaks no session. `description` is redacted so that a stray interpolation
/// cannot put the token in a log line.
public struct SessionToken: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public let value: String

    public init(value: String) { self.value = value }

    /// A new random token.
    static func generate() throws -> SessionToken {
        SessionToken(value: Base64URL.encode(try SecureRandom.bytes(32)))
    }

    /// The SHA-256 of the token, hex: what the `sessions` table stores.
    public var storageKey: String { Hex.encode(SHA256.hash(value)) }

    public var description: String { "SessionToken(redacted)" }
    public var debugDescription: String { description }
}
