import Foundation

/// The CAs an outgoing connection trusts, with an operator's CA file (`--push-ca-file`,
/// `--provider-ca-file`).
///
/// libcurl takes one CA source per handle, so the file is appended to the system bundle and
/// handed over in memory (`CURLOPT_CAINFO_BLOB`, libcurl 7.77+): the operator's CAs are added to
/// the public ones rather than replacing them (APNs, Google and the sign-in providers keep
/// working beside a relay's or a stand-in's private CA), and no temporary file holds the bundle.
public enum CABundle {
    public static let systemBundlePath = "/etc/ssl/certs/ca-certificates.crt"

    /// Why a CA file was not taken; each caller words it as its own configuration error.
    public enum LoadError: Error, Sendable {
        case unreadableFile(path: String)
        case invalidCAFile(path: String)
    }

    /// The combined PEM bytes, or nil when no CA file is given (libcurl's default bundle).
    public static func load(extraCAFile path: String?) throws(LoadError) -> [UInt8]? {
        guard let path else { return nil }
        guard let extra = FileManager.default.contents(atPath: path) else { throw .unreadableFile(path: path) }
        guard String(decoding: extra, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            throw .invalidCAFile(path: path)
        }
        var bundle = FileManager.default.contents(atPath: systemBundlePath).map { [UInt8]($0) } ?? []
        bundle.append(UInt8(ascii: "\n"))
        bundle.append(contentsOf: extra)
        return bundle
    }
}
