@testable import Auth
import Testing

@Suite struct PasswordHasherTests {
    /// Cost 4 keeps the suite fast; the default cost is tested where it is the point.
    let hasher = PasswordHasher(cost: 4)

    @Test func hashThenVerify() throws {
        let stored = try hasher.hash("correct horse battery staple")
        #expect(stored.hasPrefix("$2b$04$"))
        #expect(stored.utf8.count == 60)
        #expect(hasher.verify("correct horse battery staple", against: stored))
        #expect(!hasher.verify("correct horse battery stapler", against: stored))
        #expect(!hasher.verify("Correct horse battery staple", against: stored))
        #expect(!hasher.verify("", against: stored))
    }

    @Test func samePasswordGetsDifferentSalts() throws {
        let first = try hasher.hash("hunter2")
        let second = try hasher.hash("hunter2")
        #expect(first != second)
        #expect(hasher.verify("hunter2", against: first))
        #expect(hasher.verify("hunter2", against: second))
    }

    @Test func defaultCostIsTen() throws {
        let defaultHasher = PasswordHasher()
        #expect(defaultHasher.cost == 10)
        let stored = try defaultHasher.hash("password123")
        #expect(stored.hasPrefix("$2b$10$"))
        #expect(defaultHasher.verify("password123", against: stored))
    }

    /// A hash as found in a Parse export: a hasher of any cost verifies it.
    @Test func verifiesParseExportHash() {
        let parseHash = "$2b$10$GEJQL85jLoFTvKgaCbdkRexqpdEz7F/BaKg9VQuJ1LE27ONXJJV4."
        #expect(hasher.verify("password123", against: parseHash))
        #expect(!hasher.verify("password124", against: parseHash))
    }

    /// Openwall crypt_blowfish's published `$2a$` vector.
    @Test func verifiesPublished2aVector() {
        #expect(hasher.verify("U*U", against: "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"))
        #expect(!hasher.verify("U*U*", against: "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"))
    }

    /// `$2a$` and `$2y$` compute the same hash as `$2b$` for passwords bcrypt accepts, so a
    /// rewritten prefix is a valid hash of the same password.
    @Test(arguments: ["$2a$", "$2y$"])
    func verifiesOtherBcryptPrefixes(prefix: String) throws {
        let stored = try hasher.hash("rally-fan-2014")
        let rewritten = prefix + stored.dropFirst(4)
        #expect(hasher.verify("rally-fan-2014", against: rewritten))
        #expect(!hasher.verify("rally-fan-2015", against: rewritten))
    }

    @Test func refusesOldBuggyAndNonBcryptHashes() throws {
        let stored = try hasher.hash("pw")
        // `$2x$` is the variant with the pre-2011 sign-extension bug; MD5-crypt is not bcrypt.
        #expect(!hasher.verify("pw", against: "$2x$" + stored.dropFirst(4)))
        #expect(!hasher.verify("pw", against: "$1$saltsalt$2vnaRpHa6Jxjz5n83ok8Z0"))
    }

    @Test func refuses73BytePasswords() throws {
        let seventyTwo = String(repeating: "a", count: 72)
        let stored = try hasher.hash(seventyTwo)
        #expect(hasher.verify(seventyTwo, against: stored))

        let seventyThree = seventyTwo + "b"
        #expect(throws: PasswordError.tooLong) { try hasher.hash(seventyThree) }
        // Without the limit bcrypt would ignore the 73rd byte and accept this.
        #expect(!hasher.verify(seventyThree, against: stored))
        // The limit is in bytes: 25 three-byte characters are 75 bytes.
        #expect(throws: PasswordError.tooLong) { try hasher.hash(String(repeating: "€", count: 25)) }
    }

    @Test func refusesNUL() throws {
        #expect(throws: PasswordError.containsNUL) { try hasher.hash("pass\u{0}word") }
        let stored = try hasher.hash("pass")
        // As a C string "pass\0word" would be "pass"; it must not verify.
        #expect(!hasher.verify("pass\u{0}word", against: stored))
    }

    @Test func unicodePasswordsRoundTrip() throws {
        let password = "Ралли-🏁-Sébastien-ラリー"
        let stored = try hasher.hash(password)
        #expect(hasher.verify(password, against: stored))
        // The same text in decomposed form is different bytes, so a different password.
        #expect(!hasher.verify("Ралли-🏁-Se\u{301}bastien-ラリー", against: stored))
    }

    @Test(arguments: [
        "", "$2b$", "$2b$04$", "garbage", "*0", "*1",
        "$2b$04$tooshort",
        "$2b$99$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW",
        "$2b$04$!!!!!!!!!!!!!!!!!!!!!!E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW",
        "$2b$04$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW\u{0}tail",
    ])
    func malformedStoredHashesVerifyFalse(_ stored: String) {
        #expect(!hasher.verify("password123", against: stored))
        #expect(!hasher.verify("", against: stored))
    }

    @Test func burnTimeDoesRealBcryptWork() {
        // If the dummy hash were malformed, crypt_rn would fail at once and a login for an
        // unknown user would answer faster than one for a known user.
        for cost in [4, 10, 31] {
            let dummy = PasswordHasher(cost: cost).dummyHash
            #expect(dummy.hasPrefix(cost < 10 ? "$2b$0\(cost)$" : "$2b$\(cost)$"))
            #expect(dummy.utf8.count == 60)
        }
        let output = PasswordHasher.bcrypt("whatever", setting: hasher.dummyHash)
        #expect(output.map { String(decoding: $0, as: UTF8.self).hasPrefix("$2b$04$") } == true)
        #expect(!hasher.verify("whatever", against: hasher.dummyHash))
        hasher.burnTime("whatever")
    }

    @Test func errorsDoNotCarryThePassword() {
        do {
            _ = try hasher.hash(String(repeating: "s3cr3t", count: 20))
            Issue.record("a 120-byte password was accepted")
        } catch {
            #expect(!"\(error)".contains("s3cr3t"))
            #expect(!String(reflecting: error).contains("s3cr3t"))
        }
    }

    // MARK: The cost ceiling

    @Test func theCeilingIsTwelveOrTheConfiguredCost() {
        #expect(PasswordHasher(cost: 4).maximumCost == 12)
        #expect(PasswordHasher(cost: 10).maximumCost == 12)
        #expect(PasswordHasher(cost: 12).maximumCost == 12)
        #expect(PasswordHasher(cost: 14).maximumCost == 14)
    }

    @Test func costOfHashReadsOnlyWellFormedHashes() {
        let parseHash = "$2b$10$GEJQL85jLoFTvKgaCbdkRexqpdEz7F/BaKg9VQuJ1LE27ONXJJV4."
        #expect(PasswordHasher.cost(ofHash: parseHash) == 10)
        #expect(PasswordHasher.cost(ofHash: "$2y$31$" + parseHash.dropFirst(7)) == 31)
        #expect(PasswordHasher.cost(ofHash: "$2a$04$" + parseHash.dropFirst(7)) == 4)
        for malformed in ["", "!", "$2x$10$" + parseHash.dropFirst(7), "$2b$03$" + parseHash.dropFirst(7),
                          "$2b$32$" + parseHash.dropFirst(7), "$2b$1a$" + parseHash.dropFirst(7),
                          parseHash + "A", String(parseHash.dropLast()), String(parseHash.dropLast()) + "!"] {
            #expect(PasswordHasher.cost(ofHash: malformed) == nil, "\(malformed)")
        }
    }

    /// A hash above the ceiling is refused even with the right password: it is never computed
    /// (cost 13 here would be about 400 ms; cost 31 would be a day).
    @Test func aHashAboveTheCeilingNeverVerifies() throws {
        let cost13 = "$2b$13$exyBBn/.sCyyA0zNl2j89uyTYYvzlN8ArGjuZ3mvch7U.AFUNwYfC"  // password123
        #expect(!hasher.isVerifiable(cost13))
        #expect(!hasher.verify("password123", against: cost13))
        #expect(PasswordHasher(cost: 13).isVerifiable(cost13))
        #expect(!hasher.verify("password123", against: "$2b$31$" + cost13.dropFirst(7)))
    }
}
