import Imaging
import TestSupport
import XCTest

/// The header readers of issue 43 (API.md "Profile pictures"): each format's size, bands and
/// sample size; HEIF's coded frames against their `ispe`, grids against their tiles, AVIF
/// refused; truncated files and lying lengths refused without a crash or a large allocation.
final class ImageHeaderTests: XCTestCase {
    func testTheFixturesHeaders() throws {
        let expected: [(String, ImageFormat, Int, Int, Int, Int)] = [
            ("landscape.jpg", .jpeg, 640, 480, 3, 1), ("cmyk.jpg", .jpeg, 320, 320, 4, 1),
            ("alpha.png", .png, 300, 500, 4, 1), ("sixteen-bit.png", .png, 200, 200, 3, 2),
            ("photo.webp", .webp, 500, 300, 3, 1), ("iphone.heic", .heif, 480, 640, 3, 1),
        ]
        for (name, format, width, height, bands, sample) in expected {
            let header = try ImageHeader.read(try fixture(name))
            XCTAssertEqual([header.width, header.height, header.bands, header.bytesPerSample], [width, height, bands, sample], name)
            XCTAssertEqual(header.format, format, name)
        }
        XCTAssertThrowsError(try ImageHeader.read(try fixture("animation.gif"))) { XCTAssertEqual($0 as? ImagingError, .unsupportedFormat) }
    }

    func testPNGCountsWhatItDecodesTo() throws {
        // 16-bit RGBA, interlaced: 8 bytes a pixel.
        let png = try TestPictures.make(300, 200, bands: 4, as: ".png[interlace,bitdepth=16]")
        let header = try ImageHeader.read(png)
        XCTAssertEqual([header.bands, header.bytesPerSample, header.decodedBytes], [4, 2, 300 * 200 * 8])
        // A palette with tRNS decodes to RGBA; a 1-bit grey image to one 8-bit band.
        XCTAssertEqual(try ImageHeader.read(Self.png(colour: 3, depth: 8, chunks: [("PLTE", [0, 0, 0]), ("tRNS", [0])])).bands, 4)
        XCTAssertEqual(try ImageHeader.read(Self.png(colour: 3, depth: 8, chunks: [("PLTE", [0, 0, 0])])).bands, 3)
        XCTAssertEqual(try ImageHeader.read(Self.png(colour: 0, depth: 1, chunks: [])).bytesPerSample, 1)
        for bad in [Self.png(colour: 5, depth: 8, chunks: []), Self.png(colour: 2, depth: 4, chunks: []),
                    Array(Self.png(colour: 2, depth: 8, chunks: []).prefix(20))] {
            XCTAssertThrowsError(try ImageHeader.read(bad)) { XCTAssertEqual($0 as? ImagingError, .undecodable) }
        }
        // A chunk whose length runs past the file, before the pixels.
        var lying = Self.png(colour: 2, depth: 8, chunks: [("tEXt", Array("a".utf8))])
        lying.replaceSubrange(33..<37, with: [0x7F, 0xFF, 0xFF, 0xFF])
        XCTAssertThrowsError(try ImageHeader.read(lying)) { XCTAssertEqual($0 as? ImagingError, .undecodable) }
    }

    func testJPEGFramesAndProgressiveCoefficients() throws {
        let baseline = try ImageHeader.read(try TestPictures.make(1200, 800, as: ".jpg[Q=80]"))
        XCTAssertEqual([baseline.width, baseline.height, baseline.bands], [1200, 800, 3])
        let progressive = try ImageHeader.read(try TestPictures.make(1200, 800, as: ".jpg[Q=80,interlace]"))
        XCTAssertEqual([progressive.width, progressive.height], [1200, 800])
        for cut in [3, 10, 30, 100] {
            XCTAssertThrowsError(try ImageHeader.read(Array(try fixture("landscape.jpg").prefix(cut))), "\(cut) bytes")
        }
        // A segment length past the end; no frame header before the scan.
        XCTAssertThrowsError(try ImageHeader.read([0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xF0, 0, 0]))
        XCTAssertThrowsError(try ImageHeader.read([0xFF, 0xD8, 0xFF, 0xDA, 0, 2]))
    }

    func testWebPsCanvasMustBeItsBitstream() throws {
        let lossless = try ImageHeader.read(try TestPictures.make(321, 123, bands: 4, as: ".webp[lossless]"))
        XCTAssertEqual([lossless.width, lossless.height, lossless.bands], [321, 123, 4])
        // An extended file whose canvas says 1000 x 1000 over a 500 x 300 frame.
        let simple = try fixture("photo.webp")
        let frame = Array(simple[12...])
        var vp8x: [UInt8] = [0, 0, 0, 0]
        vp8x += [0xE7, 0x03, 0x00, 0xE7, 0x03, 0x00]   // 1000 - 1, 1000 - 1
        var body = Array("WEBP".utf8) + Array("VP8X".utf8) + [10, 0, 0, 0] + vp8x + frame
        body = Array("RIFF".utf8) + [UInt8(body.count & 0xFF), UInt8(body.count >> 8 & 0xFF), UInt8(body.count >> 16 & 0xFF), 0] + body
        XCTAssertThrowsError(try ImageHeader.read(body)) {
            XCTAssertEqual($0 as? ImagingError, .codedSizeMismatch(width: 1000, height: 1000, codedWidth: 500, codedHeight: 300))
        }
        // A RIFF length longer than the file.
        var long = simple
        long[7] = 0x7F
        XCTAssertThrowsError(try ImageHeader.read(long)) { XCTAssertEqual($0 as? ImagingError, .undecodable) }
    }

    func testAnHEIFsIspeMustBeItsCodedFrame() throws {
        let tile = try TestPictures.hevcTile.get()
        XCTAssertEqual([tile.width, tile.height], [512, 512])
        let honest = try ImageHeader.read(HEIFFiles.single(tile))
        XCTAssertEqual([honest.width, honest.height, honest.bands], [512, 512, 3])
        for claimed in [(256, 256), (1000, 1000), (512, 511)] {
            XCTAssertThrowsError(try ImageHeader.read(HEIFFiles.single(tile, claimed: claimed)), "\(claimed)") {
                XCTAssertEqual($0 as? ImagingError, .codedSizeMismatch(width: claimed.0, height: claimed.1, codedWidth: 512, codedHeight: 512))
            }
        }
        // A real HEIC (the fixture) patched the same way.
        var patched = try fixture("iphone.heic")
        let at = try XCTUnwrap(patched.firstRange(of: Array("ispe".utf8))).lowerBound
        patched.replaceSubrange((at + 8)..<(at + 16), with: [0, 0, 0x03, 0xE8, 0, 0, 0x03, 0xE8])
        XCTAssertThrowsError(try ImageHeader.read(patched)) {
            XCTAssertEqual($0 as? ImagingError, .codedSizeMismatch(width: 1000, height: 1000, codedWidth: 480, codedHeight: 640))
        }
    }

    func testAnSPSInTheItemsOwnDataMustAgreeToo() throws {
        // A decoder takes the SPS the slices name, which may come in the item's data rather than
        // in hvcC: a 256 x 256 frame's SPS put in front of a 512 x 512 tile's data is a lie too.
        let tile = try TestPictures.hevcTile.get()
        let other = try TestPictures.coded(256, 256, "hevc").get()
        let (ownSPS, lengthSize) = try XCTUnwrap(Self.sps(tile.configuration))
        let (smallSPS, _) = try XCTUnwrap(Self.sps(other.configuration))
        func prefixed(_ nal: [UInt8]) -> [UInt8] { (0..<lengthSize).reversed().map { UInt8(truncatingIfNeeded: nal.count >> (8 * $0)) } + nal }
        var honest = tile, lying = tile
        honest.data = prefixed(ownSPS) + tile.data
        lying.data = prefixed(smallSPS) + tile.data
        XCTAssertEqual(try ImageHeader.read(HEIFFiles.single(honest)).width, 512)
        XCTAssertThrowsError(try ImageHeader.read(HEIFFiles.single(lying))) {
            XCTAssertEqual($0 as? ImagingError, .codedSizeMismatch(width: 512, height: 512, codedWidth: 256, codedHeight: 256))
        }
    }

    /// The SPS NAL unit of an `hvcC` box (whole, with its header) and the NAL length size.
    static func sps(_ hvcC: [UInt8]) -> ([UInt8], Int)? {
        let payload = Array(hvcC.dropFirst(8))
        guard payload.count > 23 else { return nil }
        let lengthSize = Int(payload[21] & 3) + 1
        var at = 23
        for _ in 0..<Int(payload[22]) {
            guard at + 3 <= payload.count else { return nil }
            let type = payload[at] & 0x3F, count = Int(payload[at + 1]) << 8 | Int(payload[at + 2])
            at += 3
            for _ in 0..<count {
                guard at + 2 <= payload.count else { return nil }
                let length = Int(payload[at]) << 8 | Int(payload[at + 1])
                guard at + 2 + length <= payload.count else { return nil }
                if type == 33 { return (Array(payload[(at + 2)..<(at + 2 + length)]), lengthSize) }
                at += 2 + length
            }
        }
        return nil
    }

    func testAGridsOutputMustBeItsTiles() throws {
        let tile = try TestPictures.hevcTile.get()
        // As an iPhone writes it: 4032 x 3024 over 8 x 6 tiles of 512 (the last row and column
        // cropped), the grid's descriptor in `idat`.
        let file = HEIFFiles.grid(tile, rows: 6, columns: 8, output: (4032, 3024))
        XCTAssertNotNil(file.firstRange(of: Array("idat".utf8)))
        let phone = try ImageHeader.read(file)
        XCTAssertEqual([phone.width, phone.height], [4032, 3024])
        // The bomb: 31 x 31 tiles (15872 x 15872 decoded) under an ispe of 1000 x 1000.
        XCTAssertThrowsError(try ImageHeader.read(HEIFFiles.grid(tile, rows: 31, columns: 31, claimed: (1000, 1000)))) {
            XCTAssertEqual($0 as? ImagingError, .codedSizeMismatch(width: 1000, height: 1000, codedWidth: 15872, codedHeight: 15872))
        }
        // An output the tiles do not cover, or leave a whole tile over.
        for output in [(2000, 1024), (1024, 500), (1000, 1024)] {
            XCTAssertThrowsError(try ImageHeader.read(HEIFFiles.grid(tile, rows: 2, columns: 3, output: output)), "\(output)") {
                guard case .codedSizeMismatch = $0 as? ImagingError else { return XCTFail("\($0)") }
            }
        }
    }

    func testAVIFIsNotHEIC() throws {
        let av1 = try TestPictures.av1Tile.get()
        XCTAssertEqual(av1.itemType, "av01")
        for file in [HEIFFiles.single(av1, brands: HEIFFiles.avifBrands), HEIFFiles.single(av1), // AV1 under HEIC's brands
                     HEIFFiles.grid(av1, rows: 31, columns: 31, claimed: (1000, 1000), brands: HEIFFiles.avifBrands)] {
            XCTAssertThrowsError(try ImageHeader.read(file)) { XCTAssertEqual($0 as? ImagingError, .unsupportedFormat) }
        }
        // HEVC under AVIF's brands is not HEIC either.
        XCTAssertThrowsError(try ImageHeader.read(HEIFFiles.single(try TestPictures.hevcTile.get(), brands: HEIFFiles.avifBrands)))
    }

    func testTruncationsAndLyingLengthsAreRefusedNotFollowed() throws {
        let tile = try TestPictures.hevcTile.get()
        let files = [HEIFFiles.grid(tile, rows: 2, columns: 2), try fixture("iphone.heic"), try fixture("landscape.jpg"),
                     try fixture("alpha.png"), try fixture("photo.webp")]
        for file in files {
            let header = try ImageHeader.read(file)
            // Every prefix of the headers (the parsers read no pixel data) fails cleanly.
            for cut in stride(from: 0, to: min(file.count, 1_500), by: 1) {
                if let short = try? ImageHeader.read(Array(file.prefix(cut))) {
                    // A prefix may hold a whole header (PNG, JPEG): then it must say the same.
                    XCTAssertEqual(short, header, "\(header.format) cut at \(cut)")
                }
            }
            // Each 32-bit word of the first kilobyte made huge: refused or read the same, never a crash.
            for at in stride(from: 0, to: min(file.count - 4, 1_024), by: 4) {
                var lying = file
                lying.replaceSubrange(at..<(at + 4), with: [0xFF, 0xFF, 0xFF, 0xF0])
                _ = try? ImageHeader.read(lying)
            }
        }
    }

    /// A PNG of 4 x 4 written by hand (pixels are not read): colour type, depth, extra chunks.
    static func png(colour: UInt8, depth: UInt8, chunks: [(String, [UInt8])]) -> [UInt8] {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let n = data.count
            return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + Array(type.utf8) + data + [0, 0, 0, 0]
        }
        let ihdr: [UInt8] = [0, 0, 0, 4, 0, 0, 0, 4, depth, colour, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr)
            + chunks.flatMap { chunk($0.0, $0.1) } + chunk("IDAT", [0]) + chunk("IEND", [])
    }
}
