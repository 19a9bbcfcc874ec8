import Auth

/// The words of verification and reset mails, of the notice an old address gets after an
/// email change, and of the answer to a reset for an address no account has, in the account's
/// (or the request's) language. A pure function of its inputs, so tests read the
/// texts without sending anything.
package struct AccountMailText: Equatable {
    package let subject: String
    package let text: String
    package let html: String

    /// The notice to the address an account had before an email change (API.md): someone with
    /// the session and the password did it; if it was not the owner, the owner acts now.
    package static func emailChanged(locale: AccountLocale, username: String) -> AccountMailText {
        switch locale {
        case .english:
            AccountMailText(locale: locale, subject: "Your email address was changed", greeting: "Hi \(username),",
                            body: "The email address of your Pacenote account was changed, so mail for it no longer comes here.",
                            ignore: "If it was not you, reset your password from the app right away and tell the server's operator.")
        case .spanish:
            AccountMailText(locale: locale, subject: "Se cambió tu dirección de correo", greeting: "Hola, \(username):",
                            body: "Se cambió la dirección de correo de tu cuenta de Pacenote; su correo ya no llegará aquí.",
                            ignore: "Si no fuiste tú, restablece tu contraseña desde la app cuanto antes y avisa al operador del servidor.")
        }
    }

    /// The notice to the account's address that a provider was linked (API.md): someone with
    /// the session and a fresh proof did it; if it was not the owner, the owner acts now.
    package static func identityLinked(locale: AccountLocale, username: String, provider: String) -> AccountMailText {
        switch locale {
        case .english:
            AccountMailText(locale: locale, subject: "\(provider) was linked to your account", greeting: "Hi \(username),",
                            body: "Your Pacenote account can now be signed into with \(provider).",
                            ignore: "If it was not you, reset your password from the app right away: that removes the link and signs everyone out.")
        case .spanish:
            AccountMailText(locale: locale, subject: "Se vinculó \(provider) a tu cuenta", greeting: "Hola, \(username):",
                            body: "Ahora se puede entrar en tu cuenta de Pacenote con \(provider).",
                            ignore: "Si no fuiste tú, restablece tu contraseña desde la app cuanto antes: eso quita el vínculo y cierra todas las sesiones.")
        }
    }

    /// The answer to a reset asked for an address no account has: the same sending as for an
    /// account's address, and what its owner needs (perhaps they signed up with another one).
    package static func noAccount(locale: AccountLocale) -> AccountMailText {
        switch locale {
        case .english:
            AccountMailText(locale: locale, subject: "Reset your password", greeting: "Hi,",
                            body: "Someone asked to reset the password of a Pacenote account with this email address, but no account has it. Perhaps you signed up with another address.",
                            ignore: "If it was not you, ignore this mail.")
        case .spanish:
            AccountMailText(locale: locale, subject: "Restablece tu contraseña", greeting: "Hola:",
                            body: "Alguien pidió restablecer la contraseña de una cuenta de Pacenote con esta dirección de correo, pero ninguna cuenta la tiene. Quizá te registraste con otra dirección.",
                            ignore: "Si no fuiste tú, ignora este correo.")
        }
    }

    private init(locale: AccountLocale, subject: String, greeting: String, body: String, action: (label: String, link: String)? = nil,
                 ignore: String) {
        self.subject = subject
        let actionLines = action.map { ["\($0.label):", $0.link, ""] } ?? []
        text = ([greeting, "", body, ""] + actionLines + [ignore, ""]).joined(separator: "\n")
        let e = Self.escape
        let actionParagraph = action.map { "<p><a href=\"\(e($0.link))\">\(e($0.label))</a></p>\n" } ?? ""
        html = """
            <!DOCTYPE html>
            <html lang="\(locale.rawValue)"><head><meta charset="utf-8"><title>\(e(subject))</title></head>
            <body>
            <p>\(e(greeting))</p>
            <p>\(e(body))</p>
            \(actionParagraph)<p>\(e(ignore))</p>
            </body></html>

            """
    }

    package init(purpose: AccountTokenPurpose, locale: AccountLocale, username: String, link: String) {
        let subject: String, greeting: String, body: String, action: String, ignore: String
        switch (purpose, locale) {
        case (.verifyEmail, .english):
            subject = "Confirm your email address"
            greeting = "Hi \(username),"
            body = "Please confirm that this is your email address. The link works once, within 24 hours."
            action = "Confirm my address"
            ignore = "If you did not sign up for Pacenote, ignore this mail."
        case (.verifyEmail, .spanish):
            subject = "Confirma tu dirección de correo"
            greeting = "Hola, \(username):"
            body = "Confirma que esta es tu dirección de correo. El enlace funciona una vez, durante 24 horas."
            action = "Confirmar mi dirección"
            ignore = "Si no te registraste en Pacenote, ignora este correo."
        case (.resetPassword, .english):
            subject = "Reset your password"
            greeting = "Hi \(username),"
            body = "Someone asked to reset the password of your account. The link works once, within one hour."
            action = "Choose a new password"
            ignore = "If it was not you, ignore this mail: your password stays as it is."
        case (.resetPassword, .spanish):
            subject = "Restablece tu contraseña"
            greeting = "Hola, \(username):"
            body = "Alguien pidió restablecer la contraseña de tu cuenta. El enlace funciona una vez, durante una hora."
            action = "Elegir una contraseña nueva"
            ignore = "Si no fuiste tú, ignora este correo: tu contraseña no cambia."
        }
        self.init(locale: locale, subject: subject, greeting: greeting, body: body, action: (action, link), ignore: ignore)
    }

    /// HTML text and attribute escaping (usernames are restricted, but links come from configuration).
    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
