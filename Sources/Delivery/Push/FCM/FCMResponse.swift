import JSON

/// How an FCM HTTP v1 answer maps to an outcome (FCM "ErrorCode" reference).
enum FCMVerdict: Sendable, Equatable {
    case outcome(PushOutcome)
    /// 401: the access token was refused; get a new one and send again.
    case reauthenticate
}

enum FCMResponse {
    static func verdict(for result: HTTPResult, nowMillis: Int64) -> FCMVerdict {
        switch result {
        case .failure(let error): .outcome(.retry(afterSeconds: nil, reason: error.message))
        case .success(let response): verdict(for: response, nowMillis: nowMillis)
        }
    }

    /// Errors look like `{"error":{"code":404,"status":"NOT_FOUND","message":"...","details":
    /// [{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"},
    ///  {"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"message.token"}]}]}}`.
    static func verdict(for response: HTTPResponse, nowMillis: Int64) -> FCMVerdict {
        if response.status == 200 { return .outcome(.delivered) }
        let error = (try? JSONValue.parse(response.body))?["error"]
        let details = error?["details"]?.arrayValue ?? []
        let errorCode = details.lazy.compactMap { $0["errorCode"]?.stringValue }.first
        let status = error?["status"]?.stringValue
        if errorCode == "UNREGISTERED" { return .outcome(.tokenGone) }
        if errorCode == "INVALID_ARGUMENT" || status == "INVALID_ARGUMENT", isAboutTheToken(error: error, details: details) {
            return .outcome(.tokenGone)
        }
        switch response.status {
        case 401:
            return .reauthenticate
        case 429, 500...599:
            return .outcome(.retry(afterSeconds: RetryAfter.seconds(response.headers["retry-after"], nowMillis: nowMillis),
                                   status: response.status, serviceReason: errorCode ?? status))
        case 400...499:
            return .outcome(.failed(reason: errorCode ?? status ?? "HTTP \(response.status)"))
        default:
            return .outcome(.retry(afterSeconds: nil, status: response.status))
        }
    }

    /// INVALID_ARGUMENT is also what a malformed payload gets; only a token complaint means the
    /// installation is useless. FCM says which field in a BadRequest detail, or in its message
    /// ("The registration token is not a valid FCM registration token").
    private static func isAboutTheToken(error: JSONValue?, details: [JSONValue]) -> Bool {
        let fields = details.flatMap { $0["fieldViolations"]?.arrayValue ?? [] }.compactMap { $0["field"]?.stringValue }
        if fields.contains("message.token") { return true }
        return error?["message"]?.stringValue?.lowercased().contains("registration token") ?? false
    }
}
