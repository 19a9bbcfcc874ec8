import Crypto
import Foundation
import JSON

/// The fields of a Google service-account key file that FCM HTTP v1 needs.
struct ServiceAccount: Sendable {
    private static let projectIDBytes = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.:".utf8)

    var projectID: String
    var clientEmail: String
    var privateKeyID: String?
    var key: SigningKey
    var tokenURI: String

    static func load(path: String) throws(PushConfigurationError) -> ServiceAccount {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadableFile(path: path) }
        guard let json = try? JSONValue.parse([UInt8](data)) else { throw .invalidServiceAccount(path: path, field: "(not JSON)") }
        func field(_ name: String) throws(PushConfigurationError) -> String {
            guard let value = json[name]?.stringValue, !value.isEmpty else { throw .invalidServiceAccount(path: path, field: name) }
            return value
        }
        let projectID = try field("project_id")
        // The id goes into the request path; Google's ids are lowercase letters, digits and
        // hyphens (older ones "domain:name").
        guard projectID.utf8.allSatisfy(projectIDBytes.contains) else {
            throw .invalidServiceAccount(path: path, field: "project_id")
        }
        let key: SigningKey
        do {
            key = try SigningKey(pem: try field("private_key"), algorithm: .rs256)
        } catch {
            throw .invalidServiceAccount(path: path, field: "private_key")
        }
        let tokenURI: String
        do {
            tokenURI = try normalizedBaseURL(try field("token_uri"))
        } catch {
            throw .invalidServiceAccount(path: path, field: "token_uri")
        }
        return ServiceAccount(projectID: projectID, clientEmail: try field("client_email"),
                              privateKeyID: json["private_key_id"]?.stringValue, key: key, tokenURI: tokenURI)
    }
}
