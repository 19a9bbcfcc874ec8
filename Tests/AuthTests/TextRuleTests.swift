import Testing
@testable import Auth

/// API.md "Text": lengths in characters (grapheme clusters), at most 4 scalars per allowed
/// character, at most 10 scalars in one character, trimmed, NUL refused, the rest kept exactly.
@Suite struct TextRuleTests {
    let comment = TextRule("A comment", characters: 1...500)

    private func violation(_ rule: TextRule, _ text: String) -> TextRule.Violation? {
        if case .failure(let violation) = rule.check(text) { return violation }
        return nil
    }

    @Test func plainTextUpToTheLimitPasses() throws {
        let text = String(repeating: "a", count: 500)
        #expect(try comment.check(text).get() == text)
        #expect(violation(comment, text + "a") == .length)
        #expect(violation(comment, "") == .length)
        #expect(violation(comment, " \n\u{3000} ") == .length, "only whitespace is empty once trimmed")
    }

    @Test func storedTrimmedAndOtherwiseExact() throws {
        #expect(try comment.check("  Montée\u{00A0}de Vence \n").get() == "Montée\u{00A0}de Vence")
        // Decomposed and precomposed stay as typed: nothing is normalized.
        let decomposed = "Monte\u{301}e"
        #expect(try comment.check(decomposed).get().unicodeScalars.elementsEqual(decomposed.unicodeScalars))
    }

    @Test func nulIsRefusedAnywhere() {
        #expect(violation(comment, "a\u{0}b") == .nul)
        #expect(violation(comment, "\u{0}") == .nul)
    }

    @Test func aCharacterOfThirtyThousandAccentsIsRefused() {
        let name = TextRule("A display name", characters: 1...100)
        let zalgo = "a" + String(repeating: "\u{301}", count: 30_000)
        #expect(zalgo.count == 1, "one character, as Swift counts it")
        #expect(violation(name, zalgo) == .scalars)
    }

    @Test func atMostFourScalarsPerAllowedCharacter() throws {
        // 500 characters of 4 scalars each (e + three marks) is exactly 2,000 scalars: allowed.
        let four = String(repeating: "e\u{301}\u{302}\u{303}", count: 500)
        #expect(four.count == 500)
        #expect(try comment.check(four).get() == four)
        // One more mark: 2,001 scalars in the same 500 characters.
        let over = four + "\u{304}"
        #expect(over.count == 500 && over.unicodeScalars.count == 2_001)
        #expect(violation(comment, over) == .scalars)
        // Short texts may use their budget on few characters, within the per-character bound.
        #expect(try TextRule("A title", characters: 1...100).check(String(repeating: "e" + String(repeating: "\u{301}", count: 9), count: 40)).get().count == 40)
    }

    @Test func atMostTenScalarsInOneCharacter() {
        let ten = "a" + String(repeating: "\u{301}", count: 9)
        let eleven = ten + "\u{301}"
        #expect((try? comment.check(ten).get()) == ten)
        #expect(violation(comment, eleven) == .stackedMarks)
        #expect(violation(comment, "Hello " + eleven + " world") == .stackedMarks)
    }

    @Test(arguments: [
        "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}",                               // family: 7 scalars
        "\u{1F469}\u{1F3FD}\u{200D}\u{2764}\u{FE0F}\u{200D}\u{1F48B}\u{200D}\u{1F469}\u{1F3FD}",       // kiss, two tones: 10
        "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}",                             // flag of Scotland: 7
        "\u{1F1EB}\u{1F1EE}",                                                                          // flag of Finland: 2
        "1\u{FE0F}\u{20E3}",                                                                           // keycap: 3
        "\u{1EC7}", "e\u{323}\u{302}",                                                                 // Vietnamese ệ, both forms
    ])
    func realCharactersCountAsOne(_ character: String) throws {
        #expect(character.count == 1)
        // 3 allowed characters: a budget of 12 scalars, room for the longest emoji.
        #expect(try TextRule("A display name", characters: 1...3).check(character).get() == character)
        // Three of them fit only within the same budget.
        let three = String(repeating: character, count: 3)
        let fits = character.unicodeScalars.count * 3 <= 12
        #expect((try? TextRule("A display name", characters: 1...3).check(three).get()) == (fits ? three : nil))
    }

    @Test func indicConjunctsPass() throws {
        // Devanagari स्त्री: one or three characters depending on the Unicode version's rules, 6 scalars.
        let word = "\u{0938}\u{094D}\u{0924}\u{094D}\u{0930}\u{0940}"
        #expect(try TextRule("A title", characters: 1...3).check(word).get() == word)
    }

    @Test func messagesNameTheLimit() {
        #expect(comment.message(.length) == "A comment is 1 to 500 characters.")
        #expect(TextRule("A description", characters: 0...2_000).message(.length) == "A description is at most 2,000 characters.")
        #expect(comment.message(.scalars) == "A comment is 1 to 500 characters, and holds at most 2,000 Unicode scalars (4 per character).")
        #expect(comment.message(.stackedMarks).contains("10"))
    }

    @Test func workStopsAtTheScalarBudget() {
        // A huge input is refused after maxScalars + 1 scalars, before any grapheme is broken.
        let huge = String(repeating: "\u{301}", count: 1_000_000)
        #expect(violation(TextRule("A search (q)", characters: 1...200), "a" + huge) == .scalars)
    }
}
