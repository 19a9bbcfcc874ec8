/// The headers every file we serve to a browser carries (the console, the account pages), in
/// one place so that no page can lose one of them.
///
/// - `Content-Security-Policy`: the page's own, which always ends framing with
///   `frame-ancestors 'none'`;
/// - `X-Frame-Options: DENY`, the same refusal for browsers that ignore `frame-ancestors`
///   (clickjacking: a moderator's click on a ban button must not come from someone else's page);
/// - `X-Content-Type-Options: nosniff`, so a file is never run as another type;
/// - `Referrer-Policy: no-referrer`, so no address (an account page's token) leaves as a Referer.
enum PageHeaders {
    static func security(contentSecurityPolicy policy: String) -> [(String, String)] {
        [
            ("Content-Security-Policy", policy), ("X-Frame-Options", "DENY"),
            ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
        ]
    }
}
