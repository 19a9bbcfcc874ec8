import Foundation
import Storage
import XCTest

extension TemporaryPostgres {
    /// Throws unless a cluster is there: XCTSkip on a developer's machine without one, a
    /// failure in CI (`CI=true`, as `.ci/run` sets), where a missing cluster must not pass as
    /// a skipped test (as `StorageTests/PostgresDatabaseTests` do).
    public static func requireCluster() throws {
        guard baseURL == nil else { return }
        if ProcessInfo.processInfo.environment["CI"] == "true" { throw StorageError.connectionLost(skipReason) }
        throw XCTSkip(skipReason)
    }
}
