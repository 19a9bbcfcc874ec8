import Auth
import VideoRegistry

/// Every word the pages say, in English and Spanish; the language comes from the request's
/// `Accept-Language` (`AccountLocale(acceptLanguage:)`: q-values honoured, `es-MX` is Spanish,
/// English when nothing matches), the same choice the account pages and mails make.
struct Words {
    let locale: AccountLocale

    init(_ locale: AccountLocale) {
        self.locale = locale
    }

    private var es: Bool { locale == .spanish }

    var siteName: String { "Pacenote" }
    var openInApp: String { es ? "Ábrelo en la app Pacenote para comentar y dar me gusta." : "Open it in the Pacenote app to like and comment." }
    var comments: String { es ? "Comentarios" : "Comments" }
    var noComments: String { es ? "Todavía no hay comentarios." : "No comments yet." }
    var moreComments: String { es ? "Más comentarios" : "More comments" }
    var watchOnYouTube: String { es ? "Ver en YouTube" : "Watch on YouTube" }
    var videoPlayer: String { es ? "Reproductor de vídeo" : "Video player" }
    var top: String { es ? "Los más gustados" : "Most liked" }
    var recent: String { es ? "Los más recientes" : "Most recent" }
    var noVideos: String { es ? "Todavía no hay vídeos." : "No videos yet." }
    var older: String { es ? "Vídeos anteriores" : "Older videos" }
    var videos: String { es ? "Vídeos" : "Videos" }
    var days: String { es ? "Días" : "Days" }
    var notFoundTitle: String { es ? "No está aquí" : "Not here" }
    var notFound: String {
        es ? "Esta página no existe, o lo que mostraba ya no se puede ver." : "This page does not exist, or what it showed is no longer visible."
    }
    var badLinkTitle: String { es ? "Enlace no válido" : "Invalid link" }
    var badLink: String { es ? "Este enlace está mal formado." : "This link is malformed." }
    var unavailableTitle: String { es ? "No disponible" : "Unavailable" }
    var unavailable: String { es ? "El servidor no puede mostrar esta página ahora; prueba en un momento." : "The server cannot show this page now; try again in a moment." }

    /// Before the owner's name on a video page.
    var byLabel: String { es ? "de" : "by" }
    func day(_ number: Int) -> String { es ? "Día \(number)" : "Day \(number)" }
    func likes(_ count: Int) -> String { plural(count, "like", "likes", "me gusta", "me gusta") }
    func commentsCount(_ count: Int) -> String { plural(count, "comment", "comments", "comentario", "comentarios") }
    func videosCount(_ count: Int) -> String { plural(count, "video", "videos", "vídeo", "vídeos") }
    func followers(_ count: Int) -> String { plural(count, "follower", "followers", "seguidor", "seguidores") }

    func status(_ status: RallyStatus) -> String {
        switch status {
        case .upcoming: es ? "Próximamente" : "Upcoming"
        case .imminent: es ? "A punto de empezar" : "Starting soon"
        case .live: es ? "En directo" : "Live"
        case .finished: es ? "Terminado" : "Finished"
        }
    }

    /// The previews' description when a video has none of its own.
    func videoSummary(owner: String, rally: String, day: Int) -> String {
        let place = "\(rally), \(self.day(day).lowercased())"
        return es ? "Un vídeo de \(owner) en \(place), en Pacenote." : "A video by \(owner) at \(place), on Pacenote."
    }

    func userSummary(displayName: String, username: String, videos: Int) -> String {
        es ? "\(displayName) (@\(username)) en Pacenote: \(videosCount(videos))."
            : "\(displayName) (@\(username)) on Pacenote: \(videosCount(videos))."
    }

    func rallySummary(country: String, dates: String, videos: Int) -> String {
        es ? "\(country), \(dates): \(videosCount(videos)) en Pacenote." : "\(country), \(dates): \(videosCount(videos)) on Pacenote."
    }

    func daySummary(rally: String, day: Int, date: String) -> String {
        es ? "Los vídeos de \(rally), \(self.day(day).lowercased()) (\(date)), en Pacenote."
            : "Videos of \(rally), \(self.day(day).lowercased()) (\(date)), on Pacenote."
    }

    private func plural(_ count: Int, _ one: String, _ many: String, _ uno: String, _ muchos: String) -> String {
        "\(count) " + (count == 1 ? (es ? uno : one) : (es ? muchos : many))
    }
}
