/// What `serve --public-web` is given: the public address, and the apps that open its links.
public struct PublicWebSettings: Sendable {
    public let publicURL: PublicURL
    /// `--apple-app-id TEAMID.BUNDLE`: the app `/.well-known/apple-app-site-association` names.
    public let appleAppID: AppleAppID?
    /// `--android-package` with `--android-cert-sha256`: what `/.well-known/assetlinks.json` names.
    public let android: AndroidApp?

    public init(publicURL: PublicURL, appleAppID: AppleAppID? = nil, android: AndroidApp? = nil) {
        self.publicURL = publicURL
        self.appleAppID = appleAppID
        self.android = android
    }
}

/// Why a public web setting was refused at start; the description is the message `serve` prints.
public struct PublicWebSettingError: Error, CustomStringConvertible, Equatable {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}

/// `--public-url` as the public web needs it: an absolute `http` or `https` URL with a host, no
/// query, fragment, user or password; trailing slashes dropped. Pages' `og:url`, `shareUrl`
/// and the apps' links are built on it.
public struct PublicURL: Sendable, Equatable {
    /// The URL without a trailing `/` (`https://pacenote.example` or `https://host/base`).
    public let text: String
    /// `scheme://host[:port]`, for the Content-Security-Policy's img-src (pictures' URLs).
    public let origin: String
    /// What follows the origin: empty, or a base path such as `/pacenote` (no trailing `/`).
    public let path: String

    public init(_ value: String) throws(PublicWebSettingError) {
        let refusal = PublicWebSettingError(description: "--public-url must be the server's public address, an absolute http or https URL "
            + "without a query, such as https://pacenote.example.com (got \(value.isEmpty ? "nothing" : value))")
        var text = value
        while text.hasSuffix("/") { text.removeLast() }
        let lower = text.lowercased()
        let schemeLength: Int
        if lower.hasPrefix("https://") { schemeLength = 8 } else if lower.hasPrefix("http://") { schemeLength = 7 } else { throw refusal }
        let rest = text.dropFirst(schemeLength)
        let authority = rest.prefix { $0 != "/" }
        guard !authority.isEmpty, !authority.contains("@"), !text.contains("?"), !text.contains("#"),
              text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && !"\"'<>\\`{}|^ ".unicodeScalars.contains($0) }),
              SafeURL.absolute(text) != nil else { throw refusal }
        self.text = text
        origin = String(text.prefix(schemeLength)) + authority.lowercased()
        path = String(rest.dropFirst(authority.count))
    }

    /// The absolute URL of a video's public page: `shareUrl` in Video objects.
    public func videoPage(_ id: String) -> String {
        text + SafeURL.path(["v", id]).text
    }
}

/// `TEAMID.BUNDLE`: Apple's app identifier (a 10-character team id, then the bundle id).
public struct AppleAppID: Sendable, Equatable {
    public let text: String

    public init(_ value: String) throws(PublicWebSettingError) {
        let refusal = PublicWebSettingError(description: "--apple-app-id is TEAMID.BUNDLE, such as ABCDE12345.com.example.pacenote "
            + "(the 10-character team id, a dot, the bundle id)")
        let parts = value.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 10, parts[0].allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }),
              !parts[1].isEmpty, parts[1].count <= 155, !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
              parts[1].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }) else { throw refusal }
        text = value
    }
}

/// An Android app that handles the links: its package name and the SHA-256 fingerprints of its
/// signing certificates, as `keytool -list -v` prints them (`AA:BB:…`, 32 bytes).
public struct AndroidApp: Sendable, Equatable {
    public let packageName: String
    public let certificateFingerprints: [String]

    /// `fingerprints` is the flag's value: one fingerprint, or several separated by commas (an
    /// upload key and Play's app-signing key).
    public init(packageName: String, fingerprints: String) throws(PublicWebSettingError) {
        let segments = packageName.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count >= 2, packageName.count <= 255, segments.allSatisfy({ segment in
            guard let first = segment.first, first.isASCII, first.isLetter else { return false }
            return segment.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        }) else {
            throw PublicWebSettingError(description: "--android-package is the app's package name, such as com.example.pacenote")
        }
        var prints: [String] = []
        for part in fingerprints.split(separator: ",", omittingEmptySubsequences: false) {
            let print = part.trimmingSpaces().uppercased()
            let bytes = print.split(separator: ":", omittingEmptySubsequences: false)
            guard bytes.count == 32, bytes.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) else {
                throw PublicWebSettingError(description: "--android-cert-sha256 is the signing certificate's SHA-256 fingerprint as keytool "
                    + "prints it: 32 bytes in hex separated by colons (AA:BB:...:FF), several separated by commas")
            }
            prints.append(print)
        }
        self.packageName = packageName
        certificateFingerprints = prints
    }
}

private extension Substring {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
