import Crypto

/// The keys a Parse client must present (`serve --parse-app-id`, `--parse-client-key`,
/// `--parse-rest-key`). There is no master key: nothing a client sends bypasses Pacenote's rules.
public struct ParseKeys: Sendable {
    public var applicationID: String
    public var clientKey: String?
    public var restAPIKey: String?

    public init(applicationID: String, clientKey: String? = nil, restAPIKey: String? = nil) {
        self.applicationID = applicationID
        self.clientKey = clientKey
        self.restAPIKey = restAPIKey
    }

    /// Whether `sent` is the application id (compared in constant time, like every key).
    func isApplicationID(_ sent: String?) -> Bool {
        guard let sent else { return false }
        return constantTimeEquals(Array(sent.utf8), Array(applicationID.utf8))
    }

    /// parse-server's rule (middlewares.js lines 281-291): when any key is configured, at
    /// least one key sent must equal a configured one; with none configured, none is needed.
    func acceptsClientKeys(_ sent: [String]) -> Bool {
        let configured = [clientKey, restAPIKey].compactMap { $0 }
        guard !configured.isEmpty else { return true }
        return sent.contains { key in configured.contains { constantTimeEquals(Array(key.utf8), Array($0.utf8)) } }
    }
}
