/// An HEIC grid decoded a tile at a time (issue 43): libheif 1.15 decodes a whole grid into
/// planar RGB and then converts it into interleaved RGB, 6 bytes a pixel held at once (a 39 MP
/// iPhone-style photo: ~233 MiB). Here each tile (512 x 512 on iPhones) is wrapped in a
/// single-image HEIF of its own, decoded by libvips/libheif and shrunk by a power of two at
/// once, and the shrunk tiles are joined: the grid is never held at full size (a 39 MP grid
/// peaks at a few MiB). Used when the grid has no alpha plane and no clean aperture, and its
/// transformations are a rotation then at most a mirror (what cameras write), and whose tiles
/// are 256 x 256 or more; other grids are decoded whole, under the budget.
struct HEIFGrid {
    let rows: Int
    let columns: Int
    let width: Int
    let height: Int
    let tileWidth: Int
    let tileHeight: Int
    /// Anticlockwise quarter turns (`irot`) then the mirror (`imir`: 0 none, 1 left-right, 2 top-bottom).
    let quarterTurns: Int
    let mirror: Int
    private let container: HEIFContainer
    private let tiles: [HEIFContainer.Item]

    /// The grid of `bytes` when it can be decoded tile by tile; nil for any other file. The
    /// file has been checked by `HEIFHeader.read` already.
    init?(_ bytes: [UInt8]) {
        guard let container = try? HEIFContainer(bytes), let id = container.primary, let grid = container.items[id],
              grid.type == HEIFHeader.grid, let descriptor = try? Self.descriptor(grid, container) else { return nil }
        let tiles = container.referenced(from: id, FourCC("dimg")).compactMap { container.items[$0] }
        // Tiles of at least 256 x 256 (iPhones write 512): at most ~600 of them in 40 MP, each
        // a libheif context of its own; a grid of thousands of tiny tiles is decoded whole.
        guard tiles.count == descriptor.rows * descriptor.columns, let first = tiles.first,
              let (tileWidth, tileHeight) = try? HEIFHeader.size(of: first, in: container),
              tileWidth >= Self.minimumTileSide, tileHeight >= Self.minimumTileSide else { return nil }
        // Transformations in their order: a rotation, then a mirror; a crop means decoding whole.
        var turns = 0, mirror = 0
        for index in grid.properties where index < container.properties.count {
            var property = container.properties[index]
            switch property.type {
            case FourCC("irot"):
                guard mirror == 0, let angle = try? property.payload.u8() else { return nil }
                turns = Int(angle & 3)
            case FourCC("imir"):
                guard let axis = try? property.payload.u8() else { return nil }
                mirror = axis & 1 == 0 ? 1 : 2
            case FourCC("clap"):
                return nil
            default:
                continue
            }
        }
        self.rows = descriptor.rows
        self.columns = descriptor.columns
        self.width = descriptor.width
        self.height = descriptor.height
        self.tileWidth = tileWidth
        self.tileHeight = tileHeight
        self.quarterTurns = turns
        self.mirror = mirror
        self.container = container
        self.tiles = tiles
    }

    var tileCount: Int { tiles.count }
    static let minimumTileSide = 256

    /// The power of two the tiles are shrunk by: as much as leaves the grid's shorter side at
    /// least twice `side` (the final resize keeps a factor of two, as libvips's own shrink-on-load
    /// does), and divides the tiles exactly.
    static func shrink(width: Int, height: Int, tileWidth: Int, tileHeight: Int, side: Int) -> Int {
        var shrink = 1
        while min(width, height) / (shrink * 2) >= 2 * side, tileWidth % (shrink * 2) == 0, tileHeight % (shrink * 2) == 0 {
            shrink *= 2
        }
        return shrink
    }

    /// Tile `index` (row by row) as a single-image HEIC: its `hvcC`, `ispe` and colour
    /// properties (the tile's, else the grid's), and its coded data.
    func tileFile(_ index: Int) throws(ImagingError) -> [UInt8] {
        let tile = tiles[index]
        var properties = [try whole(try container.property(of: tile, FourCC("hvcC"))),
                          try whole(try container.property(of: tile, FourCC("ispe")))]
        var colour = try container.properties(of: tile, FourCC("colr"))
        if colour.isEmpty, let grid = container.primary.flatMap({ container.items[$0] }) {
            colour = try container.properties(of: grid, FourCC("colr"))
        }
        properties += try colour.map { box throws(ImagingError) in try whole(box) }
        var data: [UInt8] = []
        for extent in try container.data(of: tile) { data += extent.bytes[extent.offset..<extent.end] }
        return Self.singleImage(properties: properties, data: data)
    }

    private func whole(_ box: Box) throws(ImagingError) -> [UInt8] {
        Self.box(box.type, Array(box.payload.bytes[box.payload.offset..<box.payload.end]))
    }

    /// The grid's descriptor (ISO/IEC 23008-12 6.6.2.3.2): its rows, columns and output size,
    /// from the item's first 12 bytes of data (16- or 32-bit sizes by its flags).
    static func descriptor(_ grid: HEIFContainer.Item, _ container: HEIFContainer) throws(ImagingError)
        -> (rows: Int, columns: Int, width: Int, height: Int) {
        var bytes: [UInt8] = []
        for var extent in try container.data(of: grid) {
            while !extent.isAtEnd, bytes.count < 12 { bytes.append(try extent.u8()) }
        }
        var cursor = ByteCursor(bytes)
        guard try cursor.u8() == 0 else { throw .undecodable }
        let wide = try cursor.u8() & 1 == 1
        let rows = Int(try cursor.u8()) + 1, columns = Int(try cursor.u8()) + 1
        let width = wide ? try cursor.u32() : try cursor.u16()
        let height = wide ? try cursor.u32() : try cursor.u16()
        return (rows, columns, width, height)
    }

    // MARK: Writing a single-image HEIC

    /// ftyp, meta (hdlr, pitm, iinf, iloc, iprp) and mdat: item 1, `hvc1`, with `properties`
    /// (the first, `hvcC`, essential) and `data`.
    static func singleImage(properties: [[UInt8]], data: [UInt8]) -> [UInt8] {
        let ftyp = box("ftyp", Array("heic".utf8) + u32(0) + Array("mif1heic".utf8))
        let hdlr = box("hdlr", u32(0) + u32(0) + Array("pict".utf8) + u32(0) + u32(0) + u32(0) + [0])
        let pitm = box("pitm", u32(0) + u16(1))
        let iinf = box("iinf", u32(0) + u16(1) + box("infe", u32(2 << 24) + u16(1) + u16(0) + Array("hvc1".utf8) + [0]))
        let associations = properties.indices.map { UInt8($0 == 0 ? 0x80 | ($0 + 1) : $0 + 1) }
        let iprp = box("iprp", box("ipco", properties.flatMap { $0 })
                       + box("ipma", u32(0) + u32(1) + u16(1) + [UInt8(properties.count)] + associations))
        func meta(_ offset: Int) -> [UInt8] {
            let iloc = box("iloc", u32(0) + [0x44, 0x00] + u16(1) + u16(1) + u16(0) + u16(1) + u32(offset) + u32(data.count))
            return box("meta", u32(0) + hdlr + pitm + iinf + iloc + iprp)
        }
        let start = ftyp.count + meta(0).count + 8
        return ftyp + meta(start) + box("mdat", data)
    }

    static func box(_ type: StaticString, _ payload: [UInt8]) -> [UInt8] {
        var name: [UInt8] = []
        type.withUTF8Buffer { name = Array($0) }
        return u32(8 + payload.count) + name + payload
    }

    static func box(_ type: FourCC, _ payload: [UInt8]) -> [UInt8] {
        u32(8 + payload.count) + u32(Int(type.value)) + payload
    }

    static func u32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
    static func u16(_ value: Int) -> [UInt8] { [8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
}
