import Storage

/// Where an outbox row is in its life, as the `state` column spells it.
///
/// `pending` (due at `available_at`) -> `leased` (until `leased_until`) -> `done`, or back to
/// `pending` for a retry, or `dead` after the last attempt; an operator's `revive` makes a
/// dead row `pending` again. A lease that expires (a worker died mid-job) makes the row due
/// again without a transition.
public enum OutboxState: String, Sendable, CaseIterable {
    case pending, leased, done, dead

    /// The state as a SQL literal, not a bind: the planner sees the same constant as in the
    /// indexes (`outbox_lane_ready` has `state` after `lane`), and the statement's text stays
    /// one shape.
    var sql: SQL { SQL(unsafeSQL: "'\(rawValue)'") }
}

/// How an attempt at a job ends: a pure value, decided from the attempt's result and the
/// retry policy before anything is written (`Outbox.settle` writes it, fenced by the lease),
/// so every worker and every test reads the same rules.
public struct OutboxTransition: Sendable, Equatable {
    /// `done`, `pending` or `dead`; never `leased`, which only a lease writes.
    public let state: OutboxState
    /// When a retry is due; nil keeps the row's time.
    public let availableAt: Int64?
    /// Kept in `last_error` for an operator: why it failed, or why it was skipped.
    public let note: String?

    private init(state: OutboxState, availableAt: Int64? = nil, note: String? = nil) {
        self.state = state
        self.availableAt = availableAt
        self.note = note
    }

    /// The job did its work (a skipped delivery is done too, with its reason as the note).
    public static func done(note: String? = nil) -> OutboxTransition { .init(state: .done, note: note) }

    /// Given up on at once: the other side refused for good.
    public static func dead(_ error: String) -> OutboxTransition { .init(state: .dead, note: error) }

    /// A failed attempt number `attempts`: again at the policy's time, or dead after its last
    /// attempt. `notBefore` is a time the other side asked for (`Retry-After`).
    public static func failed(_ error: String, attempts: Int, policy: RetryPolicy, now: Int64,
                              random: Double = 0, notBefore: Int64? = nil) -> OutboxTransition {
        switch policy.decide(attempts: attempts, now: now, random: random, notBefore: notBefore) {
        case .retry(let time): .init(state: .pending, availableAt: time, note: error)
        case .dead: .dead(error)
        }
    }

    /// The worker's outcome this transition counts as in `/metrics`.
    var outcome: OutboxWorker.Outcome {
        state == .pending ? .retry : state == .dead ? .dead : .done
    }

    /// Whether the row is finished (`finished_at` set): done or dead.
    var finishes: Bool { state == .done || state == .dead }
}
