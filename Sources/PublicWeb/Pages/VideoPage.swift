import JSON
import VideoRegistry

/// `/v/{id}`: the player, the title, the owner, the counts, the description and the comments,
/// read only.
struct VideoPage {
    let page: WebReads.VideoPage
    let words: Words
    let site: PublicURL

    var path: SafeURL { Fragments.videoPath(page.video.video.id) }

    var html: [UInt8] {
        let video = page.video.video
        let owner = page.video.owner
        let ownerName = owner.displayName.isEmpty ? owner.username : owner.displayName
        let summary = video.description.isEmpty
            ? words.videoSummary(owner: ownerName, rally: page.rallyName, day: video.day) : video.description
        let preview = OpenGraph(title: video.title, description: summary, url: path.absolute(on: site),
                                image: .thumbnail(video.youtubeID), kind: .video(embed: .embed(video.youtubeID)))
        return PageLayout(words: words, title: OpenGraph.truncated(video.title, limit: OpenGraph.titleLimit) + " · " + words.siteName,
                          preview: preview).render { html in
            html.element(.article, [.class("video")]) { html in
                html.newline()
                html.element(.div, [.class("player")]) { html in
                    html.element(.iframe, [
                        .url(.src, .embed(video.youtubeID)), .text(.title, words.videoPlayer), .text(.width, "1280"), .text(.height, "720"),
                        .text(.allow, "encrypted-media; picture-in-picture; fullscreen"), .flag(.allowfullscreen),
                        .text(.loading, "lazy"), .text(.referrerpolicy, "strict-origin-when-cross-origin"),
                        .text(.sandbox, "allow-scripts allow-same-origin allow-presentation allow-popups"),
                    ]) { _ in }
                }
                html.newline()
                html.element(.h1, [.text(.dir, "auto")]) { $0.userText(video.title) }
                html.newline()
                html.element(.p, [.class("meta")]) { html in
                    html.text(words.byLabel + " ")
                    Fragments.userLink(owner, to: &html)
                    html.text(" · ")
                    Fragments.time(millis: video.createdAt, to: &html)
                }
                html.newline()
                html.element(.p, [.class("where")]) { html in
                    html.element(.a, [.url(.href, Fragments.dayPath(video.rallyID, video.day))]) { html in
                        html.userText(page.rallyName)
                        html.text(" · " + words.day(video.day))
                    }
                }
                html.newline()
                html.element(.p, [.class("counts")], text: words.likes(video.likesCount) + " · " + words.commentsCount(video.commentsCount))
                html.newline()
                if !video.description.isEmpty {
                    html.element(.p, [.class("description"), .text(.dir, "auto")]) { $0.userText(video.description) }
                    html.newline()
                }
                html.element(.p, [.class("watch")]) { html in
                    html.element(.a, [.url(.href, .watch(video.youtubeID)), .text(.rel, "noopener noreferrer")], text: words.watchOnYouTube)
                }
                html.newline()
                comments(to: &html)
            }
            html.newline()
        }
    }

    private func comments(to html: inout HTMLWriter) {
        html.element(.section, [.class("comments")]) { html in
            html.element(.h2, text: words.comments)
            html.newline()
            guard !page.comments.isEmpty else {
                html.element(.p, [.class("empty")], text: words.noComments)
                return
            }
            html.element(.ol) { html in
                for comment in page.comments {
                    html.newline()
                    html.element(.li, [.class("comment")]) { html in
                        html.element(.p, [.class("meta")]) { html in
                            Fragments.userLink(comment.author, to: &html)
                            html.text(" · ")
                            Fragments.time(millis: comment.createdAt, to: &html)
                        }
                        html.element(.p, [.class("content"), .text(.dir, "auto")]) { $0.userText(comment.content) }
                    }
                }
                html.newline()
            }
            html.newline()
            if let more = page.moreComments {
                Fragments.moreLink(words.moreComments, .path(["v", page.video.video.id], query: [("after", more.text)]), to: &html)
            }
        }
        html.newline()
    }
}
