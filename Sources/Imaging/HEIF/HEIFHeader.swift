/// Whether an ISO-BMFF upload is HEIC (HEVC-coded HEIF, API.md "Profile pictures") and what
/// it decodes to, with every coded frame's size checked against its header before libheif
/// allocates anything for it.
///
/// Accepted: brands `heic`, `heix` or `mif1` (none of `avif`, `avis`), a primary item that is
/// `hvc1` or a `grid` of `hvc1` tiles (what iPhones write: 512 x 512 tiles). Refused as
/// another coding: an AV1 (`av01`), JPEG, uncompressed, VVC, AVC, overlay or identity item
/// anywhere in the file (libheif would decode a thumbnail or alpha plane of that coding).
/// Refused as a lie: an `hvc1` item whose `ispe` is not the size its SPS codes (in `hvcC` or in
/// its own data), a grid whose output is not covered by exactly its rows x columns of tiles.
enum HEIFHeader {
    static let heicBrands: Set<FourCC> = [FourCC("heic"), FourCC("heix"), FourCC("mif1")]
    static let avifBrands: Set<FourCC> = [FourCC("avif"), FourCC("avis")]
    static let hevc = FourCC("hvc1"), grid = FourCC("grid")
    /// Item types libheif (1.15 and later) decodes that are not HEVC.
    static let otherCodings: Set<FourCC> = [
        FourCC("av01"), FourCC("jpeg"), FourCC("j2k1"), FourCC("unci"), FourCC("vvc1"), FourCC("avc1"),
        FourCC("iovl"), FourCC("iden"), FourCC("tili"), FourCC("mski"), FourCC("hvt1"),
    ]

    static func read(_ bytes: [UInt8]) throws(ImagingError) -> ImageHeader {
        let container = try HEIFContainer(bytes)
        guard container.brands.isDisjoint(with: avifBrands), !container.brands.isDisjoint(with: heicBrands) else {
            throw .unsupportedFormat
        }
        guard let primaryID = container.primary, let primary = container.items[primaryID],
              primary.type == hevc || primary.type == grid else { throw .unsupportedFormat }
        guard container.items.values.allSatisfy({ !otherCodings.contains($0.type) }) else { throw .unsupportedFormat }

        // Every HEVC frame, whether primary, tile, thumbnail or alpha plane: libheif may decode any.
        var coded: [Int: HEVCConfiguration] = [:]
        for item in container.items.values.sorted(by: { $0.id < $1.id }) where item.type == hevc {
            coded[item.id] = try checkedFrame(item, in: container)
        }
        for item in container.items.values.sorted(by: { $0.id < $1.id }) where item.type == grid {
            try checkGrid(item, in: container)
        }

        let (width, height) = try size(of: primary, in: container)
        let depth = primary.type == hevc
            ? coded[primary.id]?.bitDepth ?? 8
            : container.referenced(from: primary.id, FourCC("dimg")).compactMap { coded[$0]?.bitDepth }.max() ?? 8
        let bands = try hasAlpha(primary, in: container) ? 4 : 3
        var layout = ImageHeader.Layout.whole
        if primary.type == grid, bands == 3, let tiled = HEIFGrid(bytes) {
            layout = .heifGrid(tileWidth: tiled.tileWidth, tileHeight: tiled.tileHeight)
        }
        return ImageHeader(format: .heif, width: width, height: height, bands: bands, bytesPerSample: depth > 8 ? 2 : 1, layout: layout)
    }

    /// The item's `ispe`: the size its header claims.
    static func size(of item: HEIFContainer.Item, in container: HEIFContainer) throws(ImagingError) -> (Int, Int) {
        var ispe = try container.property(of: item, FourCC("ispe"))
        _ = try ispe.versionAndFlags()
        let width = try ispe.payload.u32(), height = try ispe.payload.u32()
        guard width > 0, height > 0 else { throw .undecodable }
        return (width, height)
    }

    /// An `hvc1` item's coded size, which must be its `ispe`: from `hvcC`'s SPS, and from any
    /// SPS in its data (a decoder would take that one).
    private static func checkedFrame(_ item: HEIFContainer.Item, in container: HEIFContainer) throws(ImagingError) -> HEVCConfiguration {
        let (width, height) = try size(of: item, in: container)
        let configuration = try HEVCConfiguration(hvcC: try container.property(of: item, FourCC("hvcC")).payload)
        var sizes = [(configuration.width, configuration.height)]
        try forEachInBandSPS(of: item, in: container, lengthSize: configuration.lengthSize) { sps throws(ImagingError) in
            let inBand = try HEVCConfiguration.sequenceParameterSet(sps, lengthSize: configuration.lengthSize)
            sizes.append((inBand.width, inBand.height))
        }
        for (codedWidth, codedHeight) in sizes where codedWidth != width || codedHeight != height {
            throw .codedSizeMismatch(width: width, height: height, codedWidth: codedWidth, codedHeight: codedHeight)
        }
        return configuration
    }

    /// Walks the item's length-prefixed NAL units (across its extents) and hands over each SPS.
    private static func forEachInBandSPS(of item: HEIFContainer.Item, in container: HEIFContainer, lengthSize: Int,
                                         _ body: ([UInt8]) throws(ImagingError) -> Void) throws(ImagingError) {
        var pending = 0   // bytes of a NAL unit that go on into the next extent
        for var extent in try container.data(of: item) {
            let carried = min(pending, extent.remaining)
            try extent.skip(carried)
            pending -= carried
            while !extent.isAtEnd {
                // A length prefix or NAL header split across extents is not worth supporting.
                guard extent.remaining >= lengthSize + 2 else { throw .undecodable }
                var length = 0
                for _ in 0..<lengthSize { length = length << 8 | Int(try extent.u8()) }
                guard length >= 2 else { throw .undecodable }
                var peek = extent
                let type = Int(try peek.u8() >> 1 & 0x3F)
                if type == HEVCConfiguration.spsType {
                    guard length <= extent.remaining else { throw .undecodable }
                    try body(try extent.copy(length))
                } else {
                    let here = min(length, extent.remaining)
                    try extent.skip(here)
                    pending = length - here
                }
            }
        }
        guard pending == 0 else { throw .undecodable }
    }

    /// A grid (ISO/IEC 23008-12 6.6.2.3): rows x columns of equally sized `hvc1` tiles
    /// (`dimg` references, each checked as a frame) whose output, its `ispe`, they cover with
    /// less than one tile to spare on the right and at the bottom.
    private static func checkGrid(_ item: HEIFContainer.Item, in container: HEIFContainer) throws(ImagingError) {
        let (rows, columns, outputWidth, outputHeight) = try HEIFGrid.descriptor(item, container)
        let (width, height) = try size(of: item, in: container)
        guard outputWidth == width, outputHeight == height else {
            throw .codedSizeMismatch(width: width, height: height, codedWidth: outputWidth, codedHeight: outputHeight)
        }
        let tiles = container.referenced(from: item.id, FourCC("dimg"))
        guard tiles.count == rows * columns else { throw .undecodable }
        var tileSize: (Int, Int)?
        for id in tiles {
            guard let tile = container.items[id] else { throw .undecodable }
            guard tile.type == hevc else { throw .unsupportedFormat }
            let size = try size(of: tile, in: container)
            if let tileSize, tileSize != size { throw .undecodable }
            tileSize = size
        }
        guard let (tileWidth, tileHeight) = tileSize else { throw .undecodable }
        let coveredWidth = tileWidth * columns, coveredHeight = tileHeight * rows
        guard width <= coveredWidth, width > coveredWidth - tileWidth, height <= coveredHeight, height > coveredHeight - tileHeight else {
            throw .codedSizeMismatch(width: width, height: height, codedWidth: coveredWidth, codedHeight: coveredHeight)
        }
    }

    /// Whether an auxiliary alpha plane (`auxl` to the item, `auxC` naming alpha) is decoded with it.
    private static func hasAlpha(_ item: HEIFContainer.Item, in container: HEIFContainer) throws(ImagingError) -> Bool {
        for reference in container.references where reference.type == FourCC("auxl") && reference.to.contains(item.id) {
            guard let auxiliary = container.items[reference.from] else { continue }
            for var auxC in try container.properties(of: auxiliary, FourCC("auxC")) {
                _ = try auxC.versionAndFlags()
                let text = String(decoding: auxC.payload.bytes[auxC.payload.offset..<auxC.payload.end].prefix(128), as: UTF8.self)
                if text.contains("alpha") { return true }
            }
        }
        return false
    }
}
