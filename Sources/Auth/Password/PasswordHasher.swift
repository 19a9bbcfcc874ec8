import CCrypt
import Crypto

#if canImport(Glibc)
import Glibc
#endif

/// bcrypt password hashing through libxcrypt (`crypt_gensalt_rn` and `crypt_rn`).
///
/// New hashes are `$2b$` at `cost`; verification accepts the `$2a$`, `$2b$` and `$2y$` hashes a
/// Parse export carries, up to `maximumCost`. Hashing and verifying are slow on purpose (about
/// 50 ms at cost 10, doubling with each step) and block the calling thread: call them from the
/// password-hashing pool, never from an HTTP thread or Swift's cooperative pool.
///
/// Every `verify` costs one bcrypt at most `maximumCost`, and one at `cost` when the stored hash
/// cannot be verified (malformed, not bcrypt, above the ceiling): the time of an answer tells
/// nothing about what was stored.
///
/// Thread-safe: each call uses its own scratch memory.
public struct PasswordHasher: Sendable {
    /// The bcrypt cost (log2 of the number of rounds) of new hashes, 4...31.
    public let cost: Int

    /// The highest cost `verify` runs bcrypt at: max(`costCeilingFloor`, `cost`). A stored hash
    /// above it verifies as a failure without being computed.
    public let maximumCost: Int

    /// The ceiling when `cost` is below it. Each step doubles the work: cost 12 is about 200 ms
    /// here, four times the default of 10 and Parse's own 10, which leaves room for exports hashed
    /// at 11 or 12 by other tools; cost 17 held a hashing thread for 6.8 s per login, and with two
    /// such threads (`--hash-threads`) two requests stalled every login and sign-up.
    public static let costCeilingFloor = 12

    /// What `users.password_hash` holds for an account without a password (one made by a
    /// sign-in provider, or imported without a usable hash): no bcrypt hash has this form, so
    /// `isVerifiable` refuses it and no password ever matches.
    public static let noPassword = "!"

    /// A well-formed `$2b$` hash at `cost` that no password produces in practice (salt and
    /// checksum all zero bits), used by `burnTime` so that it does the same work as `verify`.
    let dummyHash: String

    /// The longest password bcrypt reads in full, in bytes of UTF-8.
    static let maximumPasswordBytes = 72

    /// Hash prefixes `verify` accepts. `$2x$` (the pre-2011 buggy variant) is not among them.
    private static let acceptedPrefixes: [[UInt8]] = ["$2a$", "$2b$", "$2y$"].map { Array($0.utf8) }

    /// Creates a hasher that makes new hashes at `cost`.
    ///
    /// - Precondition: `4 <= cost <= 31` (bcrypt's range; configuration is validated at startup).
    public init(cost: Int = 10) {
        precondition((4...31).contains(cost), "PasswordHasher: bcrypt cost must be in 4...31, got \(cost)")
        self.cost = cost
        self.maximumCost = Swift.max(Self.costCeilingFloor, cost)
        let twoDigitCost = cost < 10 ? "0\(cost)" : "\(cost)"
        // 22 salt characters then 31 checksum characters; "." is bcrypt's base-64 digit for zero.
        self.dummyHash = "$2b$\(twoDigitCost)$" + String(repeating: ".", count: 53)
    }

    /// Returns a new `$2b$<cost>$…` hash of `password` with a fresh 16-byte salt from `SecureRandom`.
    ///
    /// - Throws: `PasswordError.tooLong` for more than 72 bytes of UTF-8,
    ///   `PasswordError.containsNUL` for a password containing U+0000, and
    ///   `PasswordError.hashingFailed(function:)` naming the C call that failed.
    public func hash(_ password: String) throws(PasswordError) -> String {
        try Self.validate(password)

        let salt: [UInt8]
        do {
            salt = try SecureRandom.bytes(16)
        } catch {
            switch error {
            case .randomFailed(let function), .digestFailed(let function):
                throw .hashingFailed(function: function)
            }
        }

        var settingBuffer = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
        let settingLength = salt.withUnsafeBytes { saltBytes in
            settingBuffer.withUnsafeMutableBufferPointer { output -> Int? in
                // Unsafe pointers: `saltBytes` (16 bytes) and `output` (CRYPT_GENSALT_OUTPUT_SIZE
                // bytes, the documented minimum) are valid inside these closures; libxcrypt reads
                // and writes no more than the sizes passed. The salt is read as `char`, which is
                // how crypt_gensalt_rn declares its random bytes.
                let randomBytes = saltBytes.baseAddress?.assumingMemoryBound(to: CChar.self)
                guard crypt_gensalt_rn("$2b$", UInt(cost), randomBytes, Int32(saltBytes.count),
                                       output.baseAddress, Int32(output.count)) != nil
                else { return nil }
                return output.firstIndex(of: 0)
            }
        }
        guard let settingLength else {
            throw .hashingFailed(function: "crypt_gensalt_rn")
        }
        let setting = String(decoding: settingBuffer[..<settingLength].map { UInt8(bitPattern: $0) }, as: UTF8.self)

        guard let hashed = Self.bcrypt(password, setting: setting) else {
            throw .hashingFailed(function: "crypt_rn")
        }
        return String(decoding: hashed, as: UTF8.self)
    }

    /// Returns whether `password` matches `storedHash`, a `$2a$`, `$2b$` or `$2y$` bcrypt hash of
    /// cost up to `maximumCost`.
    ///
    /// Returns `false`, never traps, for anything else: a password `hash` would refuse (over 72
    /// bytes, or containing NUL), or a libxcrypt failure; a stored hash that `isVerifiable`
    /// refuses (malformed, not bcrypt, above the ceiling) costs a bcrypt at `cost` first, as for
    /// an unknown user, so that an account without a usable hash answers in the usual time.
    /// The final comparison is constant time.
    public func verify(_ password: String, against storedHash: String) -> Bool {
        guard (try? Self.validate(password)) != nil else { return false }
        guard isVerifiable(storedHash) else {
            _ = Self.bcrypt(password, setting: dummyHash)
            return false
        }
        guard let computed = Self.bcrypt(password, setting: storedHash) else { return false }
        return constantTimeEquals(computed, Array(storedHash.utf8))
    }

    /// Whether `verify` computes bcrypt against `storedHash`: a well-formed hash (see
    /// `cost(ofHash:)`) of cost at most `maximumCost`.
    public func isVerifiable(_ storedHash: String) -> Bool {
        guard let hashCost = Self.cost(ofHash: storedHash) else { return false }
        return hashCost <= maximumCost
    }

    /// The cost of a well-formed bcrypt hash `verify` knows: `$2a$`, `$2b$` or `$2y$`, a two-digit
    /// cost in 4...31, `$`, then 53 characters of bcrypt's base 64 (22 of salt, 31 of checksum).
    /// Nil for anything else, `$2x$` (the pre-2011 buggy variant) included.
    public static func cost(ofHash hash: String) -> Int? {
        let bytes = Array(hash.utf8)
        guard bytes.count == 60, acceptedPrefixes.contains(where: { bytes.starts(with: $0) }), bytes[6] == UInt8(ascii: "$"),
              let tens = digit(bytes[4]), let units = digit(bytes[5]) else { return nil }
        let cost = tens * 10 + units
        guard (4...31).contains(cost), bytes[7...].allSatisfy(isBcryptBase64) else { return nil }
        return cost
    }

    private static func digit(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    /// bcrypt's base-64 alphabet: `./A-Za-z0-9`.
    private static func isBcryptBase64(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return false
        }
    }

    /// Does the work of one `verify` at this hasher's cost and throws the result away.
    ///
    /// Call it when a login names an unknown user, so that the answer takes as long as a wrong
    /// password for a known one and does not reveal which accounts exist.
    public func burnTime(_ password: String) {
        _ = verify(password, against: dummyHash)
    }

    /// Refuses passwords bcrypt would not read in full.
    private static func validate(_ password: String) throws(PasswordError) {
        if password.utf8.count > maximumPasswordBytes { throw .tooLong }
        if password.utf8.contains(0) { throw .containsNUL }
    }

    /// Runs `crypt_rn` and returns its output (a full hash, as bytes), or `nil` if libxcrypt
    /// reports a failure, including a failure token starting with `*`.
    static func bcrypt(_ password: String, setting: String) -> [UInt8]? {
        // `struct crypt_data` is 32 KiB. Hashing runs on threads we do not always create (a
        // hashing pool, libmicrohttpd's workers), whose stacks may be small (a configured
        // MHD_OPTION_THREAD_STACK_SIZE, 512 KiB for macOS secondary threads), so it lives on the
        // heap, one per call; malloc of 32 KiB is noise next to ~50 ms of bcrypt. It is allocated
        // untyped because crypt_rn takes an untyped area and Swift never reads it as crypt_data.
        let size = MemoryLayout<crypt_data>.size
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<crypt_data>.alignment)
        // Zeroed before first use, as crypt.h asks for the `initialized` and `reserved` fields.
        scratch.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        defer {
            // The `output` field holds the hash and libxcrypt may leave the phrase nearby:
            // wipe the area (explicit_bzero is not optimised away) before freeing it.
            explicit_bzero(scratch, size)
            scratch.deallocate()
        }
        return password.withCString { phrase in
            setting.withCString { setting in
                // Unsafe pointers: `phrase` and `setting` are NUL-terminated and valid inside
                // these closures; `scratch` is `size` bytes, valid until the deferred deallocate.
                guard let output = crypt_rn(phrase, setting, scratch, Int32(size)) else { return nil }
                // `output` points into `scratch` and is NUL-terminated within it; copy it out
                // before the area is wiped.
                let result = UnsafeRawBufferPointer(start: output, count: strlen(output))
                guard let first = result.first, first != UInt8(ascii: "*") else { return nil }
                return Array(result)
            }
        }
    }
}
