import Testing
@testable import Auth

/// API.md User(me) `locale`: "taken from Accept-Language" when not given.
struct AccountLocaleTests {
    @Test(arguments: [
        (nil, AccountLocale.english), ("es-MX", .spanish), ("fr-FR, es;q=0.8, en;q=0.5", .spanish),
        ("es;q=0.2, en-GB;q=0.9", .english), ("de, fr", .english), ("es;q=0", .english),
    ] as [(String?, AccountLocale)])
    func acceptLanguagePicksTheBestLanguageWeSpeak(header: String?, expected: AccountLocale) {
        #expect(AccountLocale(acceptLanguage: header) == expected)
    }
}
