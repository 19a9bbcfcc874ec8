/// Why an upload is not a picture. Every case is the client's: 400 `invalid_image`. The cases
/// carry what the message needs, never the message (the API and the import word it).
public enum ImagingError: Error, Sendable, Equatable {
    /// Not an encoding the server reads (text, GIF, SVG, PDF, AVIF or another coding in HEIF).
    case unsupportedFormat
    /// The format detected is not the one the `Content-Type` names.
    case typeMismatch(declared: ImageFormat, detected: ImageFormat)
    /// The header declares more pixels than `Imaging.maxPixels`; nothing was decoded.
    case tooManyPixels(width: Int, height: Int)
    /// The decoded form would take more than `Imaging.maxDecodedBytes`; nothing was decoded.
    case tooManyBytes(Int)
    /// A coded frame is not the size its header says (an HEIF `ispe` against its HEVC
    /// stream, a grid against its tiles, a WebP canvas against its bitstream); nothing was decoded.
    case codedSizeMismatch(width: Int, height: Int, codedWidth: Int, codedHeight: Int)
    /// Its header is truncated or contradicts itself, or its pixels do not decode.
    case undecodable
}
