import Foundation
import HTTP
import PostgresStorage
import SQLiteStorage
import Storage
import Telemetry
import TestSupport
@testable import Community
@testable import Auth
@testable import SocialAPI

/// A migrated application in a temporary data directory, answered in-process through its
/// frozen responder (Hummingbird's `.router` test depth: no sockets). Its database is SQLite in
/// that directory, or a PostgreSQL schema of its own, as `TestDatabase` says.
final class TestApplication: Sendable {
    let directory: String
    /// The schema on PostgreSQL, dropped with the application.
    let postgres: TemporaryPostgres?
    let application: Application
    let responder: Responder<Accounts.Identity>
    let logs = InMemoryLogHandler()

    /// `sqlite`: on SQLite whatever the pass, its database configured by this (the crash tests
    /// put it on `FaultyDisk`).
    init(publicRead: Bool = false, sqlite: ((inout SQLiteDatabase.Configuration) -> Void)? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pacenote-api-\(UUID().uuidString)").path
        var configuration = Application.Configuration()
        configuration.dataDirectory = directory
        configuration.accounts.bcryptCost = 4
        configuration.publicRead = publicRead
        let postgres = TestDatabase.isPostgres && sqlite == nil ? try TemporaryPostgres() : nil
        self.postgres = postgres
        application = try Application(configuration: configuration, logger: Logger(handler: logs, level: .debug)) { configuration, logger in
            if let sqlite {
                try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
                var settings = SQLiteDatabase.Configuration(path: (configuration.dataDirectory as NSString).appendingPathComponent("pacenote.sqlite"))
                sqlite(&settings)
                return try SQLiteDatabase(configuration: settings)
            }
            guard let postgres else { return try Application.openSQLite(configuration, logger: logger) }
            return try PostgresDatabase(configuration: .init(url: postgres.url))
        }
        responder = application.makeResponder()
    }

    deinit {
        application.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    func request(_ method: String, _ path: String, json: String? = nil, token: String? = nil) -> (status: Int, body: [String: Any]) {
        var headers: [(String, String)] = []
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        let response = responder.respond(to: Request(method: method, path: path, headers: HTTPHeaders(headers), body: Array((json ?? "").utf8)))
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
        return (response.status, object)
    }

    /// A video of its own, uploaded by a new user "owner" to a rally an admin made: the
    /// owner's token and the video's id.
    func makeVideo() throws -> (owner: String, id: String) {
        let admin = signUp("the_admin")
        _ = try application.accounts.setRole(.admin, idOrUsername: "the_admin")
        let rally = request("POST", "/v1/rallies", json: #"{"name":"Rally","country":"FI","startDate":"2024-08-01","endDate":"2024-08-03"}"#, token: admin)
        guard let rallyID = rally.body["id"] as? String else { throw TestApplicationError(step: "the rally", answer: "\(rally.body)") }
        let owner = signUp("owner")
        let body = #"{"youtubeId":"abcdefghijk","title":"Flat out","rallyId":"\#(rallyID)","day":1}"#
        let video = request("POST", "/v1/videos", json: body, token: owner)
        guard let id = video.body["id"] as? String else { throw TestApplicationError(step: "the video", answer: "\(video.body)") }
        return (owner, id)
    }

    /// Signs up and answers the session token.
    func signUp(_ username: String) -> String {
        let result = request("POST", "/v1/users", json: #"{"username":"\#(username)","email":"\#(username)@example.com","password":"password123"}"#)
        return result.body["sessionToken"] as? String ?? ""
    }
}

struct TestApplicationError: Error, CustomStringConvertible {
    let step: String
    let answer: String
    var description: String { "making \(step) failed: \(answer)" }
}
