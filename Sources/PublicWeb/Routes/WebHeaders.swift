/// The headers of every public page, in one place.
///
/// - `Content-Security-Policy`: nothing by default; the stylesheet from here; images from here,
///   YouTube's thumbnail host and the public URL's origin (profile pictures' absolute URLs);
///   frames from YouTube's privacy-enhanced host only; no script at all, no `<base>`, no form,
///   never framed. `X-Frame-Options: DENY` says the last for browsers without CSP 2.
/// - `Referrer-Policy: strict-origin-when-cross-origin`: YouTube's embedded player refuses to
///   play without a Referer (its error 153), so the origin, never the path, goes with it;
///   nothing here is secret.
/// - `Cache-Control: public, max-age=60`: a CDN or nginx may keep a page a minute, so a hidden
///   video leaves every cache within a minute; `Vary: Accept-Language`, the language being
///   chosen from it. The ETag is added by `ConditionalGetMiddleware`, from the body.
/// - No `Set-Cookie`, ever.
enum WebHeaders {
    static func contentSecurityPolicy(publicURL: PublicURL) -> String {
        "default-src 'none'; style-src 'self'; img-src 'self' https://i.ytimg.com \(publicURL.origin); "
            + "frame-src https://www.youtube-nocookie.com; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    static func page(publicURL: PublicURL, language: String, cacheControl: String) -> [(String, String)] {
        [
            ("Content-Type", "text/html; charset=utf-8"), ("Content-Language", language), ("Vary", "Accept-Language"),
            ("Cache-Control", cacheControl),
            ("Content-Security-Policy", contentSecurityPolicy(publicURL: publicURL)), ("X-Frame-Options", "DENY"),
            ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "strict-origin-when-cross-origin"),
        ]
    }

    static let pageCache = "public, max-age=60"
    /// Files whose path changes with their content.
    static let immutable = "public, max-age=31536000, immutable"
}
