import Community
import Delivery
import SocialAPI

/// The push flags of API.md "Command line" (Push), shared by `serve` and `push test`: each
/// service is set up only when its settings are given, and a half-given service is an error
/// at start rather than a silent inbox-only platform.
enum PushOptions {
    static let flags: [CommandSpec.Flag] = [
        .init("apns-key-file", "KEY.p8", "APNs token-auth key (iOS pushes need the four --apns settings)"),
        .init("apns-key-id", "ID", "the key's id"),
        .init("apns-team-id", "ID", "the Apple developer team id"),
        .init("apns-topic", "BUNDLE_ID", "the app's bundle id"),
        .init("apns-url", "URL", "APNs base URL (https://api.push.apple.com; sandbox: https://api.sandbox.push.apple.com)"),
        .init("fcm-service-account", "FILE.json", "Firebase service-account key (Android pushes); its token_uri is the token endpoint"),
        .init("fcm-url", "URL", "FCM base URL (https://fcm.googleapis.com)"),
        .init("webhook-url", "URL", "the operator's relay: every notification is also POSTed there, signed"),
        .init("webhook-secret", "SECRET", "the key of the webhook's X-Pacenote-Signature"),
        .init("moderation-webhook-url", "URL", "where moderation alerts go (a video's first flag, automatic hides, bans), signed like the webhook"),
        .init("moderation-webhook-secret", "SECRET", "the key of the moderation webhook's X-Pacenote-Signature"),
        .init("push-ca-file", "FILE", "CA certificates to trust for these services, beside the system's"),
        .init("push-timeout", "DURATION", "deadline of one push request (10s)"),
    ]

    static func services(_ options: Options) throws -> Application.PushServices {
        var services = Application.PushServices()
        let caFile = options.string("push-ca-file")
        let timeout = try options.duration("push-timeout", defaultMillis: 10_000)
        services.attemptMillis = timeout
        let apns = ["apns-key-file", "apns-key-id", "apns-team-id", "apns-topic"].map { options.string($0) }
        if apns.contains(where: { $0 != nil }) {
            guard let keyFile = apns[0], let keyID = apns[1], let teamID = apns[2], let topic = apns[3] else {
                throw Options.UsageError(description: "APNs needs all of --apns-key-file, --apns-key-id, --apns-team-id and --apns-topic")
            }
            var configuration = APNsConfiguration(keyFile: keyFile, keyID: keyID, teamID: teamID, topic: topic,
                                                  baseURL: options.string("apns-url", default: "https://api.push.apple.com"), caFile: caFile)
            configuration.requestTimeoutMillis = Int(timeout)
            services.providers[.ios] = try APNsProvider(configuration: configuration)
        }
        if let account = options.string("fcm-service-account") {
            var configuration = FCMConfiguration(serviceAccountFile: account, baseURL: options.string("fcm-url", default: "https://fcm.googleapis.com"),
                                                 caFile: caFile)
            configuration.requestTimeoutMillis = Int(timeout)
            services.providers[.android] = try FCMProvider(configuration: configuration)
        }
        if let url = options.string("webhook-url") {
            guard let secret = options.string("webhook-secret") else {
                throw Options.UsageError(description: "--webhook-url needs --webhook-secret")
            }
            var configuration = WebhookConfiguration(url: url, secret: secret, caFile: caFile)
            configuration.requestTimeoutMillis = Int(timeout)
            services.webhook = try WebhookNotifier(configuration: configuration)
        }
        if let url = options.string("moderation-webhook-url") {
            guard let secret = options.string("moderation-webhook-secret") else {
                throw Options.UsageError(description: "--moderation-webhook-url needs --moderation-webhook-secret")
            }
            var configuration = WebhookConfiguration(url: url, secret: secret, caFile: caFile)
            configuration.requestTimeoutMillis = Int(timeout)
            services.moderationWebhook = try WebhookNotifier(configuration: configuration)
        }
        return services
    }

    /// What `serve` says at start: which platforms are pushed to, and which are not.
    static func summary(_ services: Application.PushServices) -> (ios: String, android: String, webhook: String, moderation: String) {
        let describe = { (platform: PushPlatform) in
            services.providers[platform].map { "pushed through \($0.name)" } ?? "not pushed (no settings; notifications still reach the inbox)"
        }
        return (describe(.ios), describe(.android), services.webhook == nil ? "off" : "on", services.moderationWebhook == nil ? "off" : "on")
    }
}
