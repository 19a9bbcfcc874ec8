import Auth
import SignInProviders
import Testing

/// The flags' settings make one verifier per provider; what is not configured answers 503.
@Suite struct SignInProviderSettingsTests {
    @Test func unconfiguredProvidersAreNotConfigured() throws {
        let verifiers = try SignInProviderSettings().makeVerifiers()
        #expect(Set(verifiers.keys) == Set(IdentityProvider.allCases))
        for (provider, verifier) in verifiers {
            #expect(verifier.provider == provider)
            #expect(throws: IdentityVerificationError.notConfigured) { try verifier.verify(token: "x", nonce: nil) }
        }
    }

    @Test func configuredProvidersGetTheirVerifiers() throws {
        var settings = SignInProviderSettings()
        settings.appleAudiences = ["com.example.pacenote"]
        settings.googleAudiences = ["1234-abc.apps.googleusercontent.com"]
        settings.facebookAppID = "1234"
        settings.facebookAppSecret = "s3cret"
        #expect(settings.configuredProviders == [.apple, .google, .facebook])
        #expect(!settings.description.contains("s3cret"))
        let verifiers = try settings.makeVerifiers()
        #expect(verifiers[.apple] is OIDCVerifier)
        #expect(verifiers[.google] is OIDCVerifier)
        #expect(verifiers[.facebook] is FacebookVerifier)
        #expect(verifiers[.twitter] is NotConfiguredVerifier, "Twitter is only ever an imported link")
        #expect((verifiers[.apple] as? OIDCVerifier)?.provider == .apple)
    }

    @Test func halfAFacebookOrABadURLIsRefusedAtStart() {
        var secretless = SignInProviderSettings()
        secretless.facebookAppID = "1234"
        #expect(throws: ProviderConfigurationError.incomplete(provider: "facebook", missing: "--facebook-app-secret")) { try secretless.makeVerifiers() }
        var cleartext = SignInProviderSettings()
        cleartext.appleAudiences = ["com.example.pacenote"]
        cleartext.appleJWKSURL = "http://appleid.apple.com/auth/keys"
        #expect(throws: ProviderConfigurationError.invalidURL(setting: "--apple-jwks-url", url: "http://appleid.apple.com/auth/keys")) {
            try cleartext.makeVerifiers()
        }
        var empty = SignInProviderSettings()
        empty.googleAudiences = [""]
        #expect(throws: ProviderConfigurationError.self) { try empty.makeVerifiers() }
    }
}
