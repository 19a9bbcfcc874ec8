import Community
import JSON
import VideoRegistry

/// Pieces several pages share: links to a user and a video, a list of videos, dates.
enum Fragments {
    static func userPath(_ username: String) -> SafeURL { .path(["u", username]) }
    static func videoPath(_ id: String) -> SafeURL { .path(["v", id]) }
    static func rallyPath(_ id: String) -> SafeURL { .path(["r", id]) }
    static func dayPath(_ rallyID: String, _ day: Int) -> SafeURL { .path(["r", rallyID, String(day)]) }

    /// A profile picture's URL on this site, by its path: the page is served from the public
    /// address, and the absolute URL (`PictureLinks`) is kept for previews.
    static func picturePath(_ key: String, large: Bool) -> SafeURL {
        .path(["media", "avatars", large ? PictureName.large(key) : PictureName.small(key)])
    }

    /// The absolute URL of a picture (built on `--public-url`, `PictureLinks`), for `og:image`.
    static func pictureURL(_ key: String) -> SafeURL? {
        SafeURL.absolute(PictureLinks.url(PictureName.large(key)))
    }

    /// "Display Name (@username)" linked to the profile, the name isolated as user text.
    static func userLink(_ user: WebUser, to html: inout HTMLWriter) {
        html.element(.a, [.url(.href, userPath(user.username)), .class("user")]) { html in
            html.userText(user.displayName.isEmpty ? user.username : user.displayName)
        }
        html.text(" ")
        html.element(.span, [.class("handle")]) { html in
            html.text("@")
            html.userText(user.username)
        }
    }

    /// `<time datetime="2026-12-04T10:15:30.123Z">2026-12-04</time>`: a day needs no language.
    static func time(millis: Int64, to html: inout HTMLWriter) {
        let stamp = ISO8601Millis.format(millisecondsSince1970: millis)
        html.element(.time, [.text(.datetime, stamp)], text: String(stamp.prefix(10)))
    }

    /// A list of video cards (thumbnail, title, owner, likes), or a line saying there are none.
    static func videoList(_ videos: [WebVideo], words: Words, showOwner: Bool = true, to html: inout HTMLWriter) {
        guard !videos.isEmpty else {
            html.element(.p, [.class("empty")], text: words.noVideos)
            html.newline()
            return
        }
        html.element(.ul, [.class("videos")]) { html in
            for item in videos {
                let path = videoPath(item.video.id)
                html.newline()
                html.element(.li, [.class("video")]) { html in
                    html.element(.a, [.url(.href, path), .class("thumb")]) { html in
                        html.void(.img, [.url(.src, .thumbnail(item.video.youtubeID)), .text(.alt, ""), .text(.width, "480"),
                                         .text(.height, "360"), .text(.loading, "lazy")])
                    }
                    html.element(.p, [.class("title")]) { html in
                        html.element(.a, [.url(.href, path)]) { $0.userText(item.video.title) }
                    }
                    html.element(.p, [.class("meta")]) { html in
                        if showOwner {
                            userLink(item.owner, to: &html)
                            html.text(" · ")
                        }
                        html.text(words.likes(item.video.likesCount) + " · ")
                        time(millis: item.video.createdAt, to: &html)
                    }
                }
            }
            html.newline()
        }
        html.newline()
    }

    /// A "more" link, when a list has another page.
    static func moreLink(_ label: String, _ url: SafeURL, to html: inout HTMLWriter) {
        html.element(.p, [.class("more")]) { $0.element(.a, [.url(.href, url), .text(.rel, "next")], text: label) }
        html.newline()
    }
}
