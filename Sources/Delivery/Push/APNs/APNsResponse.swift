import JSON

/// How an APNs answer maps to an outcome (Handling notification responses from APNs).
enum APNsVerdict: Sendable, Equatable {
    case outcome(PushOutcome)
    /// 403 `ExpiredProviderToken`: sign a new token and send again.
    case renewToken
}

enum APNsResponse {
    /// Reasons that mean the device token will never work for this app again.
    static let goneReasons: Set<String> = ["BadDeviceToken", "DeviceTokenNotForTopic", "Unregistered"]

    static func verdict(for result: HTTPResult, nowMillis: Int64) -> APNsVerdict {
        switch result {
        case .failure(let error):
            return .outcome(.retry(afterSeconds: nil, reason: error.message))
        case .success(let response):
            return verdict(for: response, nowMillis: nowMillis)
        }
    }

    static func verdict(for response: HTTPResponse, nowMillis: Int64) -> APNsVerdict {
        let reason = (try? JSONValue.parse(response.body))?["reason"]?.stringValue
        switch response.status {
        case 200:
            return .outcome(.delivered)
        case 410:
            return .outcome(.tokenGone)
        case 403 where reason == "ExpiredProviderToken":
            return .renewToken
        case 429, 500...599:
            return .outcome(.retry(afterSeconds: RetryAfter.seconds(response.headers["retry-after"], nowMillis: nowMillis),
                                   status: response.status, serviceReason: reason))
        case 400...499:
            if let reason, goneReasons.contains(reason) { return .outcome(.tokenGone) }
            return .outcome(.failed(reason: reason ?? "HTTP \(response.status)"))
        default:
            // 1xx/3xx/other: not an answer APNs gives; try again later rather than drop the push.
            return .outcome(.retry(afterSeconds: nil, status: response.status))
        }
    }
}
