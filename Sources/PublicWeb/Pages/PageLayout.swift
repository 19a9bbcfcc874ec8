import Auth

/// The document every public page is: `<html lang>`, the head with the stylesheet and the
/// previews' tags, a header, the page's `<main>`, a footer. No script, no inline style, nothing
/// loaded from another host but YouTube's thumbnails and player (the CSP says the same).
struct PageLayout {
    let words: Words
    /// The page's `<title>` (escaped when written, like every text).
    let title: String
    /// A 404 or an error page has no previews, and asks robots to stay out.
    let preview: OpenGraph?

    /// The stylesheet, by a path that changes with its content (it is cached for a year).
    static let stylesheet = SafeURL.path(["web", "site-\(SiteAssets.stylesheetVersion).css"])

    func render(_ main: (inout HTMLWriter) -> Void) -> [UInt8] {
        var html = HTMLWriter()
        html.doctype()
        html.element(.html, [.text(.lang, words.locale.rawValue)]) { html in
            html.newline()
            html.element(.head) { html in
                html.newline()
                html.void(.meta, [.text(.charset, "utf-8")])
                html.newline()
                html.void(.meta, [.text(.name, "viewport"), .text(.content, "width=device-width, initial-scale=1")])
                html.newline()
                html.element(.title, text: title)
                html.newline()
                html.void(.link, [.text(.rel, "stylesheet"), .url(.href, Self.stylesheet)])
                html.newline()
                if let preview {
                    html.void(.meta, [.text(.name, "description"), .text(.content, preview.description)])
                    html.newline()
                    html.void(.link, [.text(.rel, "canonical"), .url(.href, preview.url)])
                    html.newline()
                    preview.write(to: &html, siteName: words.siteName, locale: words.locale.rawValue)
                } else {
                    html.void(.meta, [.text(.name, "robots"), .text(.content, "noindex")])
                    html.newline()
                }
            }
            html.newline()
            html.element(.body) { html in
                html.newline()
                html.element(.header, [.class("site")]) { $0.element(.p, [.class("brand")], text: words.siteName) }
                html.newline()
                html.element(.main) { html in
                    html.newline()
                    main(&html)
                }
                html.newline()
                html.element(.footer, [.class("site")]) { $0.element(.p, text: words.openInApp) }
                html.newline()
            }
            html.newline()
        }
        html.newline()
        return html.bytes
    }
}
