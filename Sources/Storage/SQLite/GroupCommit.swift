import Foundation

/// Group commit for the one writer connection: writes that arrive while another is running
/// join its transaction, each in its own savepoint, and the last of them commits for all.
///
/// Why: a commit writes every page the transaction changed to the WAL. Likes and comments
/// that come together change many of the same pages (the tail of `activities`, of the
/// outbox and of their indexes, a popular video's row), so a shared commit writes those
/// once, and BEGIN/COMMIT are paid once per batch instead of once per write.
///
/// Guarantees, the same as one transaction per write:
/// - A write returns (and its answer goes out) only after the commit that contains it.
/// - A write that throws is rolled back to its savepoint alone; the others commit.
/// - A commit that fails fails every write of its batch: none of them was acknowledged.
/// - A write alone (nobody waiting) runs exactly as before: BEGIN IMMEDIATE, body, COMMIT,
///   with no savepoint (so bulk jobs such as the import pay nothing for this).
///
/// Writes run one at a time, in turn; batching only changes where the commits fall. One
/// thing a shared commit changes: a deferred constraint (checked at COMMIT) that one write
/// breaks would fail its whole batch. The schema has none; every check is immediate.
final class GroupCommit: @unchecked Sendable {
    // @unchecked: every var is touched only under `condition`, except `open`, which only the
    // thread holding the writer (`busy`) reads or writes.

    /// A transaction shared by the writes that joined it.
    private final class Batch: @unchecked Sendable {
        // @unchecked: `members` is touched by the holder only; `outcome` under the condition.
        var members = 0
        var outcome: Result<Void, any Error>?
    }

    private let writer: SQLiteConnection
    private let condition = NSCondition()
    private var busy = false
    private var waiting = 0
    private var open: Batch?
    private var commits = 0
    /// The most writes one commit carries, so that an endless stream still commits.
    let maxBatch: Int
    /// Runs after each successful commit, with the writer held (the WAL-size backstop).
    private let afterCommit: (SQLiteConnection) -> Void

    init(writer: SQLiteConnection, maxBatch: Int = 64, afterCommit: @escaping (SQLiteConnection) -> Void) {
        self.writer = writer
        self.maxBatch = max(1, maxBatch)
        self.afterCommit = afterCommit
    }

    func write<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        acquire()
        let batch: Batch
        let joined = open != nil
        if let open {
            batch = open
        } else {
            // IMMEDIATE takes the write lock up front, so another process makes us wait
            // (busy_timeout) at BEGIN rather than fail half-way through.
            do {
                try writer.execute("BEGIN IMMEDIATE")
            } catch {
                release()
                throw error
            }
            batch = Batch()
            open = batch
        }
        batch.members += 1

        let result: Result<T, any Error> = joined ? runInSavepoint(body) : Result { try body(writer) }
        if case .failure = result, !joined {
            // Alone in its transaction (nobody joins before it lets go of the writer): roll
            // it all back, as a plain transaction would. Nobody waits for this batch.
            if writer.isInTransaction { _ = try? writer.execute("ROLLBACK") }
            open = nil
        } else if !writer.isInTransaction {
            // SQLite rolled the whole transaction back itself (a full disk, an I/O error):
            // the writes that joined before this one are lost with it, and fail with its error.
            open = nil
            let cause: any Error
            if case .failure(let error) = result { cause = error } else { cause = StorageError.connectionLost("the transaction ended inside a write") }
            finish(batch, .failure(cause))
        } else if waitingCount == 0 || batch.members >= maxBatch {
            commit(batch)
        }
        release()

        let value = try result.get()
        try awaitOutcome(of: batch).get()
        return value
    }

    /// Runs `body` holding the writer with no transaction open (the batch in progress, if
    /// any, is committed first): checkpoints that must see the WAL fully committed, closing.
    func exclusive<T>(_ body: (SQLiteConnection) throws -> T) rethrows -> T {
        acquire()
        defer { release() }
        if let open { commit(open) }
        return try body(writer)
    }

    // MARK: Steps

    private func runInSavepoint<T>(_ body: (SQLiteConnection) throws -> T) -> Result<T, any Error> {
        do {
            try writer.execute("SAVEPOINT group_commit")
        } catch {
            return .failure(error)
        }
        let result = Result { try body(writer) }
        switch result {
        case .success:
            do {
                try writer.execute("RELEASE group_commit")
                return result
            } catch {
                rollBackSavepoint()
                return .failure(error)
            }
        case .failure:
            rollBackSavepoint()
            return result
        }
    }

    private func rollBackSavepoint() {
        guard writer.isInTransaction else { return }
        _ = try? writer.execute("ROLLBACK TO group_commit")
        _ = try? writer.execute("RELEASE group_commit")
    }

    private func commit(_ batch: Batch) {
        open = nil
        do {
            try writer.execute("COMMIT")
            condition.withLock { commits += 1 }
            afterCommit(writer)
            finish(batch, .success(()))
        } catch {
            if writer.isInTransaction { _ = try? writer.execute("ROLLBACK") }
            finish(batch, .failure(error))
        }
    }

    // MARK: Turn-taking

    private func acquire() {
        condition.lock()
        waiting += 1
        while busy { condition.wait() }
        waiting -= 1
        busy = true
        condition.unlock()
    }

    private func release() {
        condition.lock()
        busy = false
        condition.broadcast()
        condition.unlock()
    }

    /// Threads waiting for their turn at the writer.
    var waitingCount: Int { condition.withLock { waiting } }

    /// Transactions committed so far (fewer than the writes when batches form).
    var commitCount: Int { condition.withLock { commits } }

    private func finish(_ batch: Batch, _ outcome: Result<Void, any Error>) {
        condition.lock()
        batch.outcome = outcome
        condition.broadcast()
        condition.unlock()
    }

    private func awaitOutcome(of batch: Batch) -> Result<Void, any Error> {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let outcome = batch.outcome { return outcome }
            condition.wait()
        }
    }
}
