/// `/u/{username}`: the profile (picture, name, counts) and its videos, newest first.
struct UserPage {
    let page: WebReads.UserPage
    let words: Words
    let site: PublicURL
    let fallbackImage: SafeURL

    var html: [UInt8] {
        let account = page.account
        let name = account.displayName.isEmpty ? account.username : account.displayName
        let image = account.picture.flatMap(Fragments.pictureURL) ?? page.videos.first.map { .thumbnail($0.video.youtubeID) } ?? fallbackImage
        let preview = OpenGraph(title: "\(name) (@\(account.username))",
                                description: words.userSummary(displayName: name, username: account.username, videos: account.videosCount),
                                url: Fragments.userPath(account.username).absolute(on: site), image: image, kind: .page)
        return PageLayout(words: words, title: OpenGraph.truncated(name, limit: OpenGraph.titleLimit) + " · " + words.siteName,
                          preview: preview).render { html in
            html.element(.section, [.class("profile")]) { html in
                html.newline()
                if let picture = account.picture {
                    html.void(.img, [.url(.src, Fragments.picturePath(picture, large: true)), .text(.alt, ""), .class("avatar"),
                                     .text(.width, "96"), .text(.height, "96")])
                    html.newline()
                }
                html.element(.h1, [.text(.dir, "auto")]) { $0.userText(name) }
                html.newline()
                html.element(.p, [.class("handle")]) { html in
                    html.text("@")
                    html.userText(account.username)
                }
                html.newline()
                html.element(.p, [.class("counts")], text: words.videosCount(account.videosCount) + " · " + words.followers(account.followersCount))
                html.newline()
            }
            html.newline()
            html.element(.section, [.class("list")]) { html in
                html.element(.h2, text: words.videos)
                html.newline()
                Fragments.videoList(page.videos, words: words, showOwner: false, to: &html)
                if let older = page.older {
                    Fragments.moreLink(words.older, .path(["u", account.username], query: [("before", older.text)]), to: &html)
                }
            }
            html.newline()
        }
    }
}
