import CurlSupport
import Telemetry

/// Why sign-in provider settings were refused at start: a bad URL, an unreadable or empty CA
/// file, a half-given provider, libcurl not starting. Names the setting, never a secret.
public enum ProviderConfigurationError: SafelyDescribedError, Equatable {
    /// Not an `https://` URL (or `http://` to a loopback address, which only tests use).
    case invalidURL(setting: String, url: String)
    case unreadableFile(path: String)
    /// The CA file holds no PEM certificate.
    case invalidCAFile(path: String)
    /// A provider's settings are only partly given (`--facebook-app-id` without its secret, say).
    case incomplete(provider: String, missing: String)
    /// A value outside its range (a timeout of 0, a response bound of 0 bytes...).
    case outOfRange(setting: String, reason: String)
    case curl(function: String)

    public var description: String {
        switch self {
        case .invalidURL(let setting, let url):
            "\(setting): \(url) is not an https:// URL (http:// is allowed only to 127.0.0.1, ::1 or localhost)"
        case .unreadableFile(let path): "cannot read \(path)"
        case .invalidCAFile(let path): "\(path) holds no PEM certificate"
        case .incomplete(let provider, let missing): "\(provider) sign-in needs \(missing) as well"
        case .outOfRange(let setting, let reason): "\(setting): \(reason)"
        case .curl(let function): "libcurl: \(function) failed"
        }
    }
}

extension ProviderConfigurationError {
    /// `CABundle.load`, its refusal worded as a provider setting's (`--provider-ca-file`).
    static func caBundle(_ path: String?) throws(ProviderConfigurationError) -> [UInt8]? {
        do {
            return try CABundle.load(extraCAFile: path)
        } catch {
            switch error {
            case .unreadableFile(let path): throw .unreadableFile(path: path)
            case .invalidCAFile(let path): throw .invalidCAFile(path: path)
            }
        }
    }
}
