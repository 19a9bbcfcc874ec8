import Auth
import HTTP
import JSON
import Storage
import Telemetry
import VideoRegistry

/// The public web (API.md "Public web", `serve --public-web`): HTML pages of rallies, days,
/// videos and users for anyone with a link, and the two well-known files that let the apps
/// open those links. An adapter over the same read stores and visibility rules as `/v1`
/// (`WebReads`), as the Parse facade is; SocialAPI registers it.
///
/// Every page is what an anonymous API reader would see, whoever asks (a session is ignored),
/// so the answer is the same for everyone with the same language and can be cached publicly.
/// Pages are written by `HTMLWriter`, which escapes every text it is given.
public struct PublicWeb: Sendable {
    let settings: PublicWebSettings
    let reads: WebReads
    /// Today's calendar day (UTC) for rallies' statuses, as `Rallies.today`.
    let today: @Sendable () -> Int

    public init(settings: PublicWebSettings, database: any Database, today: @escaping @Sendable () -> Int) {
        self.settings = settings
        self.reads = WebReads(database: database)
        self.today = today
    }

    public func register(on router: RouterBuilder<Accounts.Identity>) {
        let render: ErrorRenderer = { [settings] error, logger in Self.errorPage(error, logger: logger, words: Words(.english), settings: settings) }
        for (pattern, handler) in [
            ("/r/{id}", rallyPage), ("/r/{id}/{day}", dayPage), ("/v/{id}", videoPage), ("/u/{username}", userPage),
        ] as [(String, PageHandler)] {
            router.on("GET", pattern, policy: .public, renderError: render) { [settings] request, context in
                let words = Words(AccountLocale(acceptLanguage: request.headers["accept-language"]))
                do {
                    guard let body = try handler(request, context.parameters, words) else {
                        return Self.message(404, words.notFoundTitle, words.notFound, words: words, settings: settings)
                    }
                    return Response(status: 200, headers: WebHeaders.page(publicURL: settings.publicURL, language: words.locale.rawValue,
                                                                         cacheControl: WebHeaders.pageCache), body: body)
                } catch {
                    return Self.errorPage(error, logger: context.logger, words: words, settings: settings)
                }
            }
        }
        router.get("/web/{file}", policy: .public, asset)
        router.get("/.well-known/apple-app-site-association", policy: .public, appleAssociation)
        router.get("/.well-known/assetlinks.json", policy: .public, assetLinks)
    }

    /// A page's body, or nil for the 404 page.
    typealias PageHandler = @Sendable (Request, Parameters, Words) throws -> [UInt8]?

    var fallbackImage: SafeURL { SiteAssets.cardPath.absolute(on: settings.publicURL) }

    @Sendable func videoPage(_ request: Request, _ parameters: Parameters, _ words: Words) throws -> [UInt8]? {
        let after = try Self.cursor(request, "after")
        guard let page = try reads.video(id: try parameters.require("id"), commentsAfter: after) else { return nil }
        return VideoPage(page: page, words: words, site: settings.publicURL).html
    }

    @Sendable func userPage(_ request: Request, _ parameters: Parameters, _ words: Words) throws -> [UInt8]? {
        let before = try Self.cursor(request, "before")
        guard let page = try reads.user(try parameters.require("username"), before: before) else { return nil }
        return UserPage(page: page, words: words, site: settings.publicURL, fallbackImage: fallbackImage).html
    }

    @Sendable func rallyPage(_ request: Request, _ parameters: Parameters, _ words: Words) throws -> [UInt8]? {
        guard let page = try reads.rally(id: try parameters.require("id")) else { return nil }
        return RallyPage(page: page, words: words, site: settings.publicURL, today: today(), fallbackImage: fallbackImage).html
    }

    @Sendable func dayPage(_ request: Request, _ parameters: Parameters, _ words: Words) throws -> [UInt8]? {
        // A day is 1 to 31 written plainly; anything else names no page.
        let text = try parameters.require("day")
        guard text.count <= 2, text.allSatisfy(\.isASCII), let day = Int(text), day >= 1 else { return nil }
        let before = try Self.cursor(request, "before")
        guard let page = try reads.day(rallyID: try parameters.require("id"), day: day, before: before) else { return nil }
        return DayPage(page: page, words: words, site: settings.publicURL, fallbackImage: fallbackImage).html
    }

    /// `/web/site-<version>.css` (cached for a year: the version is its content's), the
    /// unversioned `/web/site.css`, and the previews' fallback image.
    @Sendable func asset(_ request: Request, _ context: RequestContext<Accounts.Identity>) throws -> Response {
        let name = try context.parameters.require("file")
        let security: [(String, String)] = [("X-Content-Type-Options", "nosniff")]
        switch name {
        case "site-\(SiteAssets.stylesheetVersion).css":
            return Response(status: 200, headers: [("Content-Type", "text/css; charset=utf-8"), ("Cache-Control", WebHeaders.immutable)] + security,
                            body: SiteAssets.stylesheet)
        case "site.css":
            return Response(status: 200, headers: [("Content-Type", "text/css; charset=utf-8"), ("Cache-Control", "public, max-age=3600")] + security,
                            body: SiteAssets.stylesheet)
        case "card.png":
            return Response(status: 200, headers: [("Content-Type", "image/png"), ("Cache-Control", "public, max-age=86400")] + security,
                            body: SiteAssets.card)
        default:
            throw APIError.notFound("No such file.")
        }
    }

    @Sendable func appleAssociation(_ request: Request, _ context: RequestContext<Accounts.Identity>) throws -> Response {
        guard let appID = settings.appleAppID else { throw APIError.notFound("No iOS app is configured (serve --apple-app-id).") }
        var response = Response.json(200, writer: AppLinks.appleAssociation(appID, site: settings.publicURL))
        response.headers.append(("Cache-Control", "public, max-age=3600"))
        return response
    }

    @Sendable func assetLinks(_ request: Request, _ context: RequestContext<Accounts.Identity>) throws -> Response {
        guard let app = settings.android else {
            throw APIError.notFound("No Android app is configured (serve --android-package, --android-cert-sha256).")
        }
        var response = Response.json(200, writer: AppLinks.assetLinks(app))
        response.headers.append(("Cache-Control", "public, max-age=3600"))
        return response
    }

    /// The query's cursor `name`, nil when absent; a malformed one is a 400 page.
    static func cursor(_ request: Request, _ name: String) throws(WebInputError) -> WebCursor? {
        guard let text = request.query[name] else { return nil }
        guard let cursor = WebCursor(text) else { throw WebInputError.malformedLink }
        return cursor
    }

    static func message(_ status: Int, _ title: String, _ text: String, words: Words, settings: PublicWebSettings,
                        extraHeaders: [(String, String)] = []) -> Response {
        // Not cached: a page that is missing now (a video just registered, a link mistyped)
        // must not stay missing in a cache once it exists.
        Response(status: status, headers: WebHeaders.page(publicURL: settings.publicURL, language: words.locale.rawValue, cacheControl: "no-cache")
                    + extraHeaders,
                 body: MessagePage(title: title, message: text, words: words).html)
    }

    /// Every error as a page: a malformed link 400, a busy or unreachable database 503 (with
    /// Retry-After), a refusal of the middleware (a 429) with its own status, anything else a
    /// logged 500. Never the JSON envelope, never a stack trace.
    static func errorPage(_ error: any Error, logger: Logger, words: Words, settings: PublicWebSettings) -> Response {
        if let refusal = error as? APIError {
            if refusal.status == 404 { return message(404, words.notFoundTitle, words.notFound, words: words, settings: settings) }
            if refusal.status < 500 {
                return message(refusal.status, words.badLinkTitle, refusal.message, words: words, settings: settings, extraHeaders: refusal.headers)
            }
        }
        switch error {
        case WebInputError.malformedLink:
            return message(400, words.badLinkTitle, words.badLink, words: words, settings: settings)
        case StorageError.busy, StorageError.connectionLost:
            return message(503, words.unavailableTitle, words.unavailable, words: words, settings: settings, extraHeaders: [("Retry-After", "1")])
        case VideoRegistryError.notFound:
            return message(404, words.notFoundTitle, words.notFound, words: words, settings: settings)
        default:
            logUnhandledError(error, logger: logger)
            return message(500, words.unavailableTitle, words.unavailable, words: words, settings: settings)
        }
    }
}

/// A link whose query cannot be read (a cursor that is not one).
enum WebInputError: Error, Equatable {
    case malformedLink
}
