/// Why a password could not be hashed.
///
/// No case carries the password or a hash, so an error can be logged as it is.
public enum PasswordError: Error, Sendable, Equatable {
    /// The password is longer than 72 bytes of UTF-8. bcrypt reads only the first 72 bytes and
    /// would silently ignore the rest, so such a password is refused rather than cut.
    case tooLong
    /// The password contains a NUL character, where the C string handed to bcrypt would end.
    case containsNUL
    /// A C call failed while hashing (`RAND_bytes`, `crypt_gensalt_rn` or `crypt_rn`).
    case hashingFailed(function: String)
}
