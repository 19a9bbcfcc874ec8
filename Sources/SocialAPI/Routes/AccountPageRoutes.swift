import Auth
import Community
import HTTP

/// The two small pages mail links open (API.md: `GET /account/verify?token=`,
/// `GET /account/reset?token=`), in the browser's language, and the script and style they use.
///
/// No inline script or style anywhere: the Content-Security-Policy allows scripts, styles and
/// requests from this server only, so even a page that somehow carried injected markup could
/// run nothing. The token stays in the address: `Referrer-Policy: no-referrer` keeps it from
/// leaving with any request, and `no-store` keeps the page out of caches.
struct AccountPageRoutes {
    static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        + "img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    func register(on router: RouterBuilder<Accounts.Identity>) {
        router.get("/account/verify", policy: .public, verify)
        router.get("/account/reset", policy: .public, reset)
        router.get("/account/account.js", policy: .public, script)
        router.get("/account/account.css", policy: .public, style)
    }

    @Sendable func verify(_ request: Request, _ context: Context) throws -> Response {
        let locale = AccountLocale(acceptLanguage: request.headers["accept-language"])
        return page(AccountPage(kind: .verify, locale: locale), locale: locale)
    }

    @Sendable func reset(_ request: Request, _ context: Context) throws -> Response {
        let locale = AccountLocale(acceptLanguage: request.headers["accept-language"])
        return page(AccountPage(kind: .reset, locale: locale), locale: locale)
    }

    @Sendable func script(_ request: Request, _ context: Context) throws -> Response {
        asset(PackageResources.account_js, type: "text/javascript; charset=utf-8")
    }

    @Sendable func style(_ request: Request, _ context: Context) throws -> Response {
        asset(PackageResources.account_css, type: "text/css; charset=utf-8")
    }

    private func page(_ page: AccountPage, locale: AccountLocale) -> Response {
        Response(status: 200, headers: Self.securityHeaders + [
            ("Content-Type", "text/html; charset=utf-8"), ("Content-Language", locale.rawValue), ("Vary", "Accept-Language"),
            ("Cache-Control", "no-store"),
        ], body: Array(page.html.utf8))
    }

    private func asset(_ bytes: [UInt8], type: String) -> Response {
        Response(status: 200, headers: Self.securityHeaders + [("Content-Type", type), ("Cache-Control", "public, max-age=3600")], body: bytes)
    }

    static let securityHeaders = PageHeaders.security(contentSecurityPolicy: contentSecurityPolicy)
}

/// The HTML of an account page: static markup, the words in `data-*` attributes for the script.
struct AccountPage {
    enum Kind: String { case verify, reset }

    let kind: Kind
    let locale: AccountLocale

    var html: String {
        let w = words
        let e = AccountMailText.escape
        let data = ["page": kind.rawValue, "working": w.working, "done": w.done, "invalid": w.invalid, "weak": w.weak,
                    "mismatch": w.mismatch, "later": w.later, "error": w.error]
            .sorted { $0.key < $1.key }
            .map { "data-\($0.key)=\"\(e($0.value))\"" }.joined(separator: " ")
        let form = kind == .reset ? """
            <form id="reset-form" class="hidden" autocomplete="off">
            <label for="password">\(e(w.password))</label>
            <input id="password" name="password" type="password" minlength="8" maxlength="72" autocomplete="new-password" required>
            <label for="repeat">\(e(w.repeatPassword))</label>
            <input id="repeat" name="repeat" type="password" minlength="8" maxlength="72" autocomplete="new-password" required>
            <button id="submit" type="submit">\(e(w.submit))</button>
            </form>
            """ : ""
        return """
            <!DOCTYPE html>
            <html lang="\(locale.rawValue)">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">
            <title>\(e(w.title))</title>
            <link rel="stylesheet" href="/account/account.css">
            <script src="/account/account.js" defer></script>
            </head>
            <body>
            <main id="page" \(data)>
            <h1>\(e(w.title))</h1>
            \(form)
            <p id="status" role="status"></p>
            <noscript><p>\(e(w.noScript))</p></noscript>
            </main>
            </body>
            </html>

            """
    }

    private struct Words {
        var title, working, done, invalid, weak, mismatch, later, error, password, repeatPassword, submit, noScript: String
    }

    private var words: Words {
        switch (kind, locale) {
        case (.verify, .english):
            Words(title: "Confirm your email address", working: "Confirming…", done: "Your email address is confirmed. You can close this page.",
                  invalid: "This link is unknown, used or expired. Ask the app for a new one.", weak: "", mismatch: "",
                  later: "Too many attempts; try again later.", error: "Something went wrong; try again later.",
                  password: "", repeatPassword: "", submit: "", noScript: "This page needs JavaScript to confirm your address.")
        case (.verify, .spanish):
            Words(title: "Confirma tu dirección de correo", working: "Confirmando…", done: "Tu dirección de correo está confirmada. Puedes cerrar esta página.",
                  invalid: "Este enlace no es válido, ya se usó o caducó. Pide uno nuevo desde la app.", weak: "", mismatch: "",
                  later: "Demasiados intentos; prueba más tarde.", error: "Algo salió mal; prueba más tarde.",
                  password: "", repeatPassword: "", submit: "", noScript: "Esta página necesita JavaScript para confirmar tu dirección.")
        case (.reset, .english):
            Words(title: "Choose a new password", working: "Saving…", done: "Your password is changed. Sign in with it in the app.",
                  invalid: "This link is unknown, used or expired. Ask the app for a new one.",
                  weak: "A password is 8 to 72 bytes long.", mismatch: "The two passwords differ.",
                  later: "Too many attempts; try again later.", error: "Something went wrong; try again later.",
                  password: "New password", repeatPassword: "Repeat it", submit: "Set the password",
                  noScript: "This page needs JavaScript to set your password.")
        case (.reset, .spanish):
            Words(title: "Elige una contraseña nueva", working: "Guardando…", done: "Tu contraseña ha cambiado. Inicia sesión con ella en la app.",
                  invalid: "Este enlace no es válido, ya se usó o caducó. Pide uno nuevo desde la app.",
                  weak: "Una contraseña tiene de 8 a 72 bytes.", mismatch: "Las dos contraseñas no coinciden.",
                  later: "Demasiados intentos; prueba más tarde.", error: "Algo salió mal; prueba más tarde.",
                  password: "Contraseña nueva", repeatPassword: "Repítela", submit: "Guardar la contraseña",
                  noScript: "Esta página necesita JavaScript para guardar tu contraseña.")
        }
    }
}
