import Synchronization

/// The requests at once whose body may be larger than the server's limit: at most
/// `maxLargeBodies` in all (each may hold its whole body in memory until answered), and at most
/// `maxPerHolder` of one `BodyHolder` (the caller), so that one account cannot take the slots
/// every other account's uploads need. A slot is taken from the head, after the `HeadCheck`
/// admitted it, and given back when MHD reports the request ended, however it ended.
///
/// One mutex for both counts: taken twice per upload, never on other requests, and both
/// limits must be checked and taken together or two racing requests could both pass.
final class LargeBodySlots: Sendable {
    /// What a request holds while its body is read and handled.
    struct Lease: Sendable, Equatable {
        let holder: BodyHolder?
    }

    /// Why no slot was given.
    enum Refusal: Error, Equatable {
        /// Every slot is taken (503: the server's state, not the client's doing).
        case full
        /// The holder already has `maxPerHolder` (429: the client's doing).
        case holderAtLimit
    }

    private struct Counts {
        var total = 0
        var byHolder: [BodyHolder: Int] = [:]
    }

    let capacity: Int
    let maxPerHolder: Int
    private let counts = Mutex(Counts())

    init(capacity: Int, maxPerHolder: Int) {
        self.capacity = capacity
        self.maxPerHolder = maxPerHolder
    }

    /// Requests holding a slot now.
    var inUse: Int { counts.withLock { $0.total } }

    /// Slots `holder` holds now.
    func held(by holder: BodyHolder) -> Int { counts.withLock { $0.byHolder[holder] ?? 0 } }

    /// Takes a slot for `holder`; the holder's limit is checked first, so an account over its own
    /// limit is told so (429) even when the server is also full.
    func take(for holder: BodyHolder?) throws(Refusal) -> Lease {
        try counts.withLock { (counts: inout Counts) throws(Refusal) -> Lease in
            if let holder, counts.byHolder[holder, default: 0] >= maxPerHolder { throw .holderAtLimit }
            guard counts.total < capacity else { throw .full }
            counts.total += 1
            if let holder { counts.byHolder[holder, default: 0] += 1 }
            return Lease(holder: holder)
        }
    }

    /// Gives back what `take` gave; exactly once per lease (the request's completion callback).
    func release(_ lease: Lease) {
        counts.withLock { counts in
            counts.total -= 1
            guard let holder = lease.holder, let held = counts.byHolder[holder] else { return }
            // Dropped at zero, so the table holds only accounts uploading now.
            counts.byHolder[holder] = held > 1 ? held - 1 : nil
        }
    }
}
