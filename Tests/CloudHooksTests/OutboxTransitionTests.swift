import CloudHooks
import Testing

/// The outbox's transitions are decided before anything is written, from the attempt's result
/// and the retry policy alone: no database, no clock.
@Suite struct OutboxTransitionTests {
    private var policy: RetryPolicy {
        var policy = RetryPolicy()
        policy.baseMillis = 1_000
        policy.maxAttempts = 3
        return policy
    }

    @Test func aFailedAttemptIsRetriedWithBackoffThenGivenUp() {
        let first = OutboxTransition.failed("HTTP 503", attempts: 1, policy: policy, now: 10_000)
        #expect(first.state == .pending)
        #expect(first.availableAt == 11_000)
        #expect(first.note == "HTTP 503")
        #expect(OutboxTransition.failed("HTTP 503", attempts: 2, policy: policy, now: 10_000).availableAt == 12_000)
        let last = OutboxTransition.failed("HTTP 503", attempts: 3, policy: policy, now: 10_000)
        #expect(last == .dead("HTTP 503"))
        #expect(last.availableAt == nil)
    }

    @Test func aRetryNeverComesBeforeTheTimeTheOtherSideAskedFor() {
        let transition = OutboxTransition.failed("HTTP 429", attempts: 1, policy: policy, now: 10_000, notBefore: 70_000)
        #expect(transition.state == .pending)
        #expect(transition.availableAt == 70_000)
    }

    @Test func doneAndDeadKeepTheirNote() {
        #expect(OutboxTransition.done().state == .done)
        #expect(OutboxTransition.done().note == nil)
        #expect(OutboxTransition.done(note: "account deleted").note == "account deleted")
        #expect(OutboxTransition.dead("BadDeviceToken").state == .dead)
    }
}
