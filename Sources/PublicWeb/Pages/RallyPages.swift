import JSON
import VideoRegistry

/// `/r/{rallyId}`: the rally, its dates and status, and a link to each day.
struct RallyPage {
    let page: WebReads.RallyPage
    let words: Words
    let site: PublicURL
    let today: Int
    let fallbackImage: SafeURL

    var html: [UInt8] {
        let rally = page.rally
        let dates = RallyDates.span(rally)
        let preview = OpenGraph(title: rally.name, description: words.rallySummary(country: rally.country, dates: dates, videos: rally.videosCount),
                                url: Fragments.rallyPath(rally.id).absolute(on: site),
                                image: page.first.map { .thumbnail($0.video.youtubeID) } ?? fallbackImage, kind: .page)
        return PageLayout(words: words, title: OpenGraph.truncated(rally.name, limit: OpenGraph.titleLimit) + " · " + words.siteName,
                          preview: preview).render { html in
            html.element(.section, [.class("rally")]) { html in
                html.newline()
                html.element(.h1, [.text(.dir, "auto")]) { $0.userText(rally.name) }
                html.newline()
                html.element(.p, [.class("meta")]) { html in
                    html.userText(rally.country)
                    html.text(" · " + dates + " · " + words.status(rally.status(today: today)) + " · " + words.videosCount(rally.videosCount))
                }
                html.newline()
                html.element(.h2, text: words.days)
                html.newline()
                html.element(.ul, [.class("days")]) { html in
                    for number in 1...rally.dayCount {
                        let date = rally.date(ofDay: number)
                        html.newline()
                        html.element(.li) { html in
                            html.element(.a, [.url(.href, Fragments.dayPath(rally.id, number))], text: words.day(number))
                            html.text(" · " + CalendarDate.format(daysSince1970: date) + " · "
                                + words.status(RallyStatus.of(start: date, end: date, today: today)))
                        }
                    }
                    html.newline()
                }
                html.newline()
            }
            html.newline()
        }
    }
}

/// `/r/{rallyId}/{day}`: the day's videos, the most liked and the most recent.
struct DayPage {
    let page: WebReads.DayPage
    let words: Words
    let site: PublicURL
    let fallbackImage: SafeURL

    var html: [UInt8] {
        let rally = page.rally
        let date = CalendarDate.format(daysSince1970: rally.date(ofDay: page.day))
        let title = "\(rally.name) · \(words.day(page.day))"
        let image = (page.top.first ?? page.recent.first).map { SafeURL.thumbnail($0.video.youtubeID) } ?? fallbackImage
        let preview = OpenGraph(title: title, description: words.daySummary(rally: rally.name, day: page.day, date: date),
                                url: Fragments.dayPath(rally.id, page.day).absolute(on: site), image: image, kind: .page)
        return PageLayout(words: words, title: OpenGraph.truncated(title, limit: OpenGraph.titleLimit) + " · " + words.siteName,
                          preview: preview).render { html in
            html.element(.nav, [.class("up")]) { html in
                html.element(.a, [.url(.href, Fragments.rallyPath(rally.id))]) { $0.userText(rally.name) }
            }
            html.newline()
            html.element(.h1, [.text(.dir, "auto")]) { html in
                html.userText(rally.name)
                html.text(" · " + words.day(page.day))
            }
            html.newline()
            html.element(.p, [.class("meta")]) { html in
                html.element(.time, [.text(.datetime, date)], text: date)
            }
            html.newline()
            html.element(.section, [.class("list top")]) { html in
                html.element(.h2, text: words.top)
                html.newline()
                Fragments.videoList(page.top, words: words, to: &html)
            }
            html.newline()
            html.element(.section, [.class("list recent")]) { html in
                html.element(.h2, text: words.recent)
                html.newline()
                Fragments.videoList(page.recent, words: words, to: &html)
                if let older = page.older {
                    Fragments.moreLink(words.older, .path(["r", rally.id, String(page.day)], query: [("before", older.text)]), to: &html)
                }
            }
            html.newline()
        }
    }
}

enum RallyDates {
    /// `2026-03-05 – 2026-03-08`, or one date for a one-day rally.
    static func span(_ rally: Rally) -> String {
        let start = CalendarDate.format(daysSince1970: rally.startDay)
        return rally.dayCount == 1 ? start : start + " – " + CalendarDate.format(daysSince1970: rally.endDay)
    }
}
