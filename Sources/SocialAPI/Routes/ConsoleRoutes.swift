import Auth
import HTTP

/// The console (`/console/`) for moderators and, with the operators' screens of
/// `operators.js` (calendar, announcements, statistics), admins: static HTML, CSS and JavaScript embedded in the binary
/// (`Sources/SocialAPI/Console`), loaded without a session; every API call it makes needs one.
///
/// Every file is served with `PageHeaders`: a Content-Security-Policy that allows scripts,
/// styles and everything else from this origin only (no inline script or style), images also
/// from YouTube's thumbnail host (users' pictures, absolute on `--public-url`, are loaded by
/// their `/media/avatars/` path on this origin: console.js `picturePath`), no framing (and
/// `X-Frame-Options: DENY`), no `<base>`, forms posting only here; `nosniff`, and no Referer
/// leaves the console.
struct ConsoleRoutes {
    static let contentSecurityPolicy = "default-src 'self'; img-src 'self' https://i.ytimg.com; script-src 'self'; style-src 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    static let securityHeaders: [(String, String)] = PageHeaders.security(contentSecurityPolicy: contentSecurityPolicy) + [
        // A new release's files are fetched again rather than mixed with cached old ones.
        ("Cache-Control", "no-cache"),
    ]

    static let files: [String: (contentType: String, bytes: [UInt8])] = [
        "console.js": ("text/javascript; charset=utf-8", PackageResources.console_js),
        "console.css": ("text/css; charset=utf-8", PackageResources.console_css),
        "operators.js": ("text/javascript; charset=utf-8", PackageResources.operators_js),
        "favicon.svg": ("image/svg+xml", PackageResources.favicon_svg),
    ]

    func register(on router: RouterBuilder<Accounts.Identity>) {
        router.get("/console/", policy: .public, page)
        router.get("/console/{file}", policy: .public, file)
        // Browsers ask every origin for /favicon.ico; a 404 there is an error in the console of
        // every page (the browser tests read it). The console's pages also link the icon.
        router.get("/favicon.ico", policy: .public, favicon)
    }

    @Sendable func favicon(_ request: Request, _ context: Context) throws -> Response {
        Response(status: 200, headers: [("Content-Type", "image/svg+xml"), ("Cache-Control", "public, max-age=86400")]
                    + PageHeaders.security(contentSecurityPolicy: Self.contentSecurityPolicy), body: PackageResources.favicon_svg)
    }

    @Sendable func page(_ request: Request, _ context: Context) throws -> Response {
        Self.serve("text/html; charset=utf-8", PackageResources.index_html)
    }

    @Sendable func file(_ request: Request, _ context: Context) throws -> Response {
        let name = try context.parameters.require("file")
        if name == "index.html" { return Self.serve("text/html; charset=utf-8", PackageResources.index_html) }
        guard let file = Self.files[name] else { throw APIError.notFound("No such console file.") }
        return Self.serve(file.contentType, file.bytes)
    }

    private static func serve(_ contentType: String, _ bytes: [UInt8]) -> Response {
        Response(status: 200, headers: [("Content-Type", contentType)] + securityHeaders, body: bytes)
    }
}
