import Foundation

/// The CAs push connections trust.
///
/// libcurl takes one CA source per handle, so `--push-ca-file` is appended to the system bundle
/// and handed over in memory (`CURLOPT_CAINFO_BLOB`, libcurl 7.77+): the operator's CAs are
/// added to the public ones rather than replacing them (APNs and Google keep working when a
/// relay has a private CA), and no temporary file holds the bundle.
enum CABundle {
    static let systemBundlePath = "/etc/ssl/certs/ca-certificates.crt"

    /// The combined PEM bytes, or nil when no CA file is given (libcurl's default bundle).
    static func load(extraCAFile path: String?) throws(PushConfigurationError) -> [UInt8]? {
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
