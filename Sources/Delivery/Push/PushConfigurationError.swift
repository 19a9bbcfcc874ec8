import CurlSupport
/// Why a push provider could not be built from the operator's settings. Raised at start, so
/// `serve` can say which setting is wrong; descriptions name files and fields, never key bytes.
public enum PushConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A key, service-account or CA file could not be read.
    case unreadableFile(path: String)
    /// The key in a file is not the kind the service needs.
    case invalidKey(path: String, expected: String)
    /// A service-account file lacks a field or has a malformed one.
    case invalidServiceAccount(path: String, field: String)
    /// A base URL is not http(s)://host...
    case invalidURL(String)
    /// A CA file holds no PEM certificate.
    case invalidCAFile(path: String)
    /// A setting that must not be empty is (key id, team id, topic, webhook secret).
    case missingSetting(String)
    /// libcurl could not be set up.
    case curl(function: String)

    public var description: String {
        switch self {
        case .unreadableFile(let path): "cannot read \(path)"
        case .invalidKey(let path, let expected): "\(path) is not a PEM \(expected)"
        case .invalidServiceAccount(let path, let field): "service account \(path): missing or invalid \"\(field)\""
        case .invalidURL(let url): "not an http(s) URL: \(url)"
        case .invalidCAFile(let path): "\(path) holds no PEM certificate"
        case .missingSetting(let name): "\(name) must not be empty"
        case .curl(let function): "libcurl: \(function) failed"
        }
    }
}

extension PushConfigurationError {
    /// `CABundle.load`, its refusal worded as a push setting's (`--push-ca-file`).
    static func caBundle(_ path: String?) throws(PushConfigurationError) -> [UInt8]? {
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
