import PublicWeb

/// The public web's flags of API.md "Command line" (Public web and Parse facade): the pages are
/// on with `--public-web`, which needs `--public-url`; the app-link files with their flags.
enum PublicWebOptions {
    static let flags: [CommandSpec.Flag] = [
        .init("public-web", nil, "serve the public pages /r/, /v/ and /u/ and the app-link files; needs --public-url (off)"),
        .init("apple-app-id", "TEAMID.BUNDLE", "the iOS app that opens the pages' links: /.well-known/apple-app-site-association (404 without it)"),
        .init("android-package", "NAME", "the Android app that opens the pages' links: /.well-known/assetlinks.json, with --android-cert-sha256"),
        .init("android-cert-sha256", "AA:BB:...", "the Android app's signing certificate SHA-256 fingerprint(s), as keytool prints them, comma-separated"),
    ]

    /// The settings, or nil when the public web is off; a flag that cannot be used stops
    /// `serve` with its reason (an app-link flag without `--public-web`, a bad fingerprint).
    static func settings(_ options: Options, publicURL: String?) throws -> PublicWebSettings? {
        let appleAppID = options.string("apple-app-id")
        let package = options.string("android-package")
        let fingerprints = options.string("android-cert-sha256")
        guard try options.bool("public-web") else {
            if appleAppID != nil || package != nil || fingerprints != nil {
                throw Options.UsageError(description: "--apple-app-id, --android-package and --android-cert-sha256 need --public-web")
            }
            return nil
        }
        guard let publicURL else {
            throw Options.UsageError(description: "--public-web needs --public-url, the pages' absolute address such as https://pacenote.example.com "
                + "(previews and shared links are built on it)")
        }
        do {
            let android: AndroidApp?
            switch (package, fingerprints) {
            case (nil, nil): android = nil
            case (let package?, let fingerprints?): android = try AndroidApp(packageName: package, fingerprints: fingerprints)
            default: throw PublicWebSettingError(description: "--android-package and --android-cert-sha256 go together")
            }
            return PublicWebSettings(publicURL: try PublicURL(publicURL), appleAppID: try appleAppID.map { try AppleAppID($0) }, android: android)
        } catch let error as PublicWebSettingError {
            throw Options.UsageError(description: error.description)
        }
    }
}
