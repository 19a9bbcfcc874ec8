/// The files the pages load from this server, embedded in the binary (`Assets/`).
enum SiteAssets {
    static let stylesheet: [UInt8] = PackageResources.site_css
    /// The preview image of a page that has no picture of its own (1200×630 PNG).
    static let card: [UInt8] = PackageResources.card_png

    /// FNV-1a of the stylesheet, in hex: its path changes when it does, so it is cached for a year.
    static let stylesheetVersion: String = {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in stylesheet {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }()

    static let cardPath = SafeURL.path(["web", "card.png"])
}
