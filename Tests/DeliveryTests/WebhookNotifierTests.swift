import Crypto
import Delivery
import Foundation
import TestSupport
import Testing

@Suite(.serialized) struct WebhookNotifierTests {
    static let secret = "relay-secret-for-tests"

    @Test func deliveriesAreSignedAndAnswersMapToOutcomes() throws {
        let standIn = try StandIn(script: ["webhookSecret": Self.secret, "responses": [
            "n-2": [["status": 503, "headers": ["retry-after": "12"]], ["status": 204]],
            "n-3": [["status": 400]],
        ]])
        let clock = ManualClock()
        let notifier = try WebhookNotifier(configuration: WebhookConfiguration(
            url: standIn.baseURL + "/relay", secret: Self.secret, caFile: standIn.caFile), clock: clock)
        let body = Array(#"{"kind":"like","toUserId":"u1","fromUserId":"u2","videoId":"v1"}"#.utf8)
        let deliveries = [WebhookDelivery(id: "n-1", body: body), WebhookDelivery(id: "n-2", body: body), WebhookDelivery(id: "n-3", body: body)]
        #expect(notifier.send(deliveries) == [.delivered, .retry(afterSeconds: 12, reason: "HTTP 503"), .failed(reason: "HTTP 400")])
        #expect(notifier.send([deliveries[1]]) == [.delivered])

        let requests = standIn.requests()
        #expect(requests.count == 4)
        #expect(requests.allSatisfy { $0["signatureValid"] as? Bool == true }) // checked by the relay with Python's hmac
        #expect(requests.compactMap { $0[path: "headers", "x-pacenote-delivery"] as? String } == ["n-1", "n-2", "n-3", "n-2"])
        let header = try #require(requests.first?[path: "headers", "x-pacenote-signature"] as? String)
        #expect(header.hasPrefix("t=1700000000,v1="))
        let key = HMACKey(bytes: Array(Self.secret.utf8))
        #expect(WebhookSignature.isValid(header: header, body: body, key: key, nowSeconds: 1_700_000_100))
        #expect(!WebhookSignature.isValid(header: header, body: body + [0x20], key: key, nowSeconds: 1_700_000_100))
        #expect(!WebhookSignature.isValid(header: header, body: body, key: key, nowSeconds: 1_700_001_000)) // too old: a replay
        #expect(!WebhookSignature.isValid(header: header, body: body, key: HMACKey(bytes: Array("other".utf8)), nowSeconds: 1_700_000_100))
    }

    @Test func aRelayThatIsDownIsRetried() throws {
        // Port 1 on loopback: nothing listens there, so the connection is refused. (The
        // stand-in only provides a CA file.)
        let standIn = try StandIn()
        let unusedURL = "https://127.0.0.1:1/relay"
        let notifier = try WebhookNotifier(configuration: WebhookConfiguration(url: unusedURL, secret: Self.secret, caFile: standIn.caFile))
        let outcomes = notifier.send([WebhookDelivery(id: "n-1", body: Array("{}".utf8))])
        guard outcomes.count == 1, case .retry(afterSeconds: nil, let reason) = outcomes[0] else {
            Issue.record("one retry expected, got \(outcomes)")
            return
        }
        #expect(!reason.isEmpty, "the transport's error, for the operator's log")
    }
}
