@testable import Community

import Testing

@Suite struct PushTextTests {
    @Test(arguments: [
        (NotificationKind.like, true, "en", "Ana likes your video."),
        (.like, true, "es", "A Ana le gusta tu vídeo."),
        (.like, false, "en-GB", "Ana likes a video by Bruno."),
        (.like, false, "es_MX", "A Ana le gusta un vídeo de Bruno."),
        (.comment, true, "en", "Ana commented on your video: Great stage!"),
        (.comment, true, "ES", "Ana comentó tu vídeo: Great stage!"),
        (.comment, false, "en", "Ana commented on a video by Bruno: Great stage!"),
        (.comment, false, "es", "Ana comentó un vídeo de Bruno: Great stage!"),
        (.follow, true, "en", "Ana started following you."),
        (.follow, true, "es", "Ana empezó a seguirte."),
        (.follow, false, "en", "Ana started following Bruno."),
        (.follow, false, "es", "Ana empezó a seguir a Bruno."),
        (.newVideo, false, "en", "Ana posted a new video: Rally Portugal SS3"),
        (.newVideo, false, "es", "Ana publicó un vídeo nuevo: Rally Portugal SS3"),
    ])
    func texts(kind: NotificationKind, isAboutMe: Bool, locale: String, expected: String) {
        #expect(PushText.body(kind: kind, actorName: "Ana", otherName: "Bruno", videoTitle: "Rally Portugal SS3",
                              commentText: "Great stage!", locale: locale, isAboutMe: isAboutMe) == expected)
    }

    @Test func unknownOrMissingLocaleIsEnglish() {
        #expect(PushText.body(kind: .follow, actorName: "Ana", locale: nil, isAboutMe: true) == "Ana started following you.")
        #expect(PushText.body(kind: .follow, actorName: "Ana", locale: "pt-BR", isAboutMe: true) == "Ana started following you.")
    }

    @Test func longCommentsAreCutAndKeptOnOneLine() {
        let text = PushText.body(kind: .comment, actorName: "Ana", commentText: "line one\nline two " + String(repeating: "x", count: 200),
                                 locale: "en", isAboutMe: true)
        #expect(text.hasPrefix("Ana commented on your video: line one line two xxx"))
        #expect(text.hasSuffix("…"))
        #expect(!text.contains("\n"))
        #expect(text.count == "Ana commented on your video: ".count + PushText.maxQuotedCharacters + 1)
    }

    @Test func missingTitleOrCommentGivesAShortSentence() {
        #expect(PushText.body(kind: .newVideo, actorName: "Ana", videoTitle: "", locale: "es", isAboutMe: false) == "Ana publicó un vídeo nuevo.")
        #expect(PushText.body(kind: .comment, actorName: "Ana", locale: "en", isAboutMe: true) == "Ana commented on your video.")
    }
}
