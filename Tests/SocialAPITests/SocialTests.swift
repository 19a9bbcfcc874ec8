import Storage
import TestSupport
import XCTest
@testable import Community
@testable import Auth
@testable import SocialAPI

/// Forwards to a real connection, but answers `error` for every statement whose text contains
/// `fragment`: a database failure at one chosen step of a store's work.
final class FailingConnection: ForwardingConnection {
    let base: any DatabaseConnection
    let fragment: String
    let error: StorageError

    init(_ base: any DatabaseConnection, failing fragment: String, with error: StorageError) {
        self.base = base
        self.fragment = fragment
        self.error = error
    }

    private func check(_ sql: SQL) throws(StorageError) {
        if sql.render(for: base.dialect).text.contains(fragment) { throw error }
    }

    func execute(_ sql: SQL) throws(StorageError) -> Int {
        try check(sql)
        return try base.execute(sql)
    }

    func fetchAll(_ sql: SQL) throws(StorageError) -> [Row] {
        try check(sql)
        return try base.fetchAll(sql)
    }

    func fetchAll<T>(_ sql: SQL, reading read: (inout RowReader) throws -> T) throws -> [T] {
        try check(sql)
        return try base.fetchAll(sql, reading: read)
    }

    func fetchOne(_ sql: SQL) throws(StorageError) -> Row? {
        try check(sql)
        return try base.fetchOne(sql)
    }

    func executeScript(_ sql: SQL) throws(StorageError) {
        try check(sql)
        try base.executeScript(sql)
    }
}

/// Likes, comments, flags and follows inside a caller's transaction, on the database
/// `TestDatabase` chooses.
final class SocialTests: XCTestCase {
    /// A database failure while deleting a comment is the database's, not "no such comment": a
    /// 404 would tell the client the comment is gone when it is not, and on PostgreSQL a
    /// serialization failure turned into a 404 ended the write instead of running it again.
    func testAStorageFailureOfTheVideoLookupIsNotANotFound() throws {
        let app = try TestApplication()
        let (owner, videoID) = try app.makeVideo()
        let posted = app.request("POST", "/v1/videos/\(videoID)/comments", json: #"{"content":"Flat out!"}"#, token: owner)
        let commentID = try XCTUnwrap(posted.body["id"] as? String, "\(posted.body)")
        let identity = try app.application.accounts.authenticate(token: owner)
        let social = app.application.social

        // A statement timeout on the video's look-up (PostgreSQL answers it as busy: 503).
        XCTAssertThrowsError(try app.application.database.write { connection in
            try social.deleteComment(id: commentID, by: identity, on: FailingConnection(connection, failing: "FROM videos", with: .busy))
        }) { error in
            guard case StorageError.busy = error else { return XCTFail("the look-up's failure, not \(error)") }
        }
        let deleted = try app.application.database.write { connection in try social.deleteComment(id: commentID, by: identity, on: connection) }
        XCTAssertEqual(deleted.comment.id, commentID, "the comment was still there")
        XCTAssertFalse(deleted.asModerator)
    }
}
