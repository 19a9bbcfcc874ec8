/// The encodings a profile picture may come in (API.md "Profile pictures"), each read by one
/// libvips loader. Every other loader is blocked at start (`pn_vips_start`), and `heif` means
/// HEVC-coded HEIF only (HEIC): AVIF and other codings in the same container are refused by
/// `ImageHeader` before libheif sees them.
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg, png, webp, heif

    init?(loader: String) {
        switch loader {
        case "VipsForeignLoadJpegBuffer": self = .jpeg
        case "VipsForeignLoadPngBuffer": self = .png
        case "VipsForeignLoadWebpBuffer": self = .webp
        case "VipsForeignLoadHeifBuffer": self = .heif
        default: return nil
        }
    }

    var loader: String {
        switch self {
        case .jpeg: "VipsForeignLoadJpegBuffer"
        case .png: "VipsForeignLoadPngBuffer"
        case .webp: "VipsForeignLoadWebpBuffer"
        case .heif: "VipsForeignLoadHeifBuffer"
        }
    }

    /// The media types an upload of this format is sent with, the canonical one first
    /// (`image/heif` beside `image/heic`: Android names HEIF files so; `image/jpg` beside
    /// `image/jpeg`: some clients send it). The one place media-type strings are mapped.
    public var mediaTypes: [String] {
        switch self {
        case .jpeg: ["image/jpeg", "image/jpg"]
        case .png: ["image/png"]
        case .webp: ["image/webp"]
        case .heif: ["image/heic", "image/heif"]
        }
    }

    /// The format a `Content-Type` names: the media type compared case aside, its parameters
    /// and surrounding spaces ignored (`image/JPEG; q=1` is JPEG); nil for any other type.
    public init?(mediaType header: String) {
        let type = header.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let trimmed = type.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
        let name = String(trimmed).lowercased()
        guard let format = Self.allCases.first(where: { $0.mediaTypes.contains(name) }) else { return nil }
        self = format
    }
}
