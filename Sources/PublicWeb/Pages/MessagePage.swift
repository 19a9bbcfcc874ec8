/// A page that only says something: not found (404), a malformed link (400), unavailable (503).
/// It carries no previews and asks robots not to index it.
struct MessagePage {
    let title: String
    let message: String
    let words: Words

    var html: [UInt8] {
        PageLayout(words: words, title: title + " · " + words.siteName, preview: nil).render { html in
            html.element(.h1, text: title)
            html.newline()
            html.element(.p, text: message)
            html.newline()
        }
    }
}
