/// The parts of an HEIF file's `meta` box (ISO/IEC 23008-12) that say what its images are:
/// the brands, the primary item, every item's type, references, properties (`iprp`) and
/// where its data lies (`iloc`). Read with bounds on every count; pixels are never touched.
struct HEIFContainer {
    struct Extent { let offset: Int; let length: Int }

    struct Item {
        let id: Int
        var type: FourCC
        /// Indexes into `properties`, in `ipma` order.
        var properties: [Int] = []
        /// Byte ranges of the file (or of `idat`, when `inIDAT`).
        var extents: [Extent] = []
        var inIDAT = false
    }

    struct Reference { let type: FourCC; let from: Int; let to: [Int] }

    var brands: Set<FourCC> = []
    var primary: Int?
    var items: [Int: Item] = [:]
    var references: [Reference] = []
    /// `ipco`'s boxes, 0-based (`ipma` counts from 1).
    var properties: [Box] = []
    var idat: ByteCursor?
    let bytes: [UInt8]
    // Held until every box is read: `iloc` and `ipma` may come before `iinf`.
    private var locations: [Int: ([Extent], Bool)] = [:]
    private var associations: [Int: [Int]] = [:]

    /// Items, references and extents a file may have: an iPhone's 48 MP photo has a few
    /// hundred items (its 512 x 512 tiles), far below.
    static let maxEntries = 16_384

    init(_ bytes: [UInt8]) throws(ImagingError) {
        self.bytes = bytes
        let top = try Box.children(of: ByteCursor(bytes), limit: 256)
        guard var ftyp = top.first, ftyp.type == FourCC("ftyp") else { throw .unsupportedFormat }
        brands.insert(try ftyp.payload.fourCC())
        try ftyp.payload.skip(4)                                         // minor_version
        while ftyp.payload.remaining >= 4, brands.count < 64 { brands.insert(try ftyp.payload.fourCC()) }
        let metas = top.filter { $0.type == FourCC("meta") }
        guard metas.count == 1, var meta = metas.first else { throw .undecodable }
        _ = try meta.versionAndFlags()
        for var box in try Box.children(of: meta.payload, limit: 64) {
            switch box.type {
            case FourCC("pitm"):
                let (version, _) = try box.versionAndFlags()
                primary = version == 0 ? try box.payload.u16() : try box.payload.u32()
            case FourCC("iinf"): try readItemInfo(&box)
            case FourCC("iref"): try readReferences(&box)
            case FourCC("iloc"): try readLocations(&box)
            case FourCC("idat"): idat = box.payload
            case FourCC("iprp"): try readProperties(box)
            default: continue
            }
        }
        for (id, (extents, inIDAT)) in locations {
            items[id]?.extents = extents
            items[id]?.inIDAT = inIDAT
        }
        for (id, indexes) in associations { items[id]?.properties = indexes }
    }

    private mutating func readItemInfo(_ box: inout Box) throws(ImagingError) {
        let (version, _) = try box.versionAndFlags()
        _ = version == 0 ? try box.payload.u16() : try box.payload.u32()  // entry_count: the boxes say
        for var entry in try Box.children(of: box.payload, limit: Self.maxEntries) where entry.type == FourCC("infe") {
            let (version, _) = try entry.versionAndFlags()
            // Versions 0 and 1 name no item type: nothing libheif decodes.
            guard version >= 2 else { continue }
            let id = version == 2 ? try entry.payload.u16() : try entry.payload.u32()
            _ = try entry.payload.u16()                                  // item_protection_index
            let type = try entry.payload.fourCC()
            guard items[id] == nil else { throw .undecodable }
            items[id] = Item(id: id, type: type)
        }
    }

    private mutating func readReferences(_ box: inout Box) throws(ImagingError) {
        let (version, _) = try box.versionAndFlags()
        for var reference in try Box.children(of: box.payload, limit: Self.maxEntries) {
            let from = version == 0 ? try reference.payload.u16() : try reference.payload.u32()
            let count = try reference.payload.u16()
            guard count * (version == 0 ? 2 : 4) <= reference.payload.remaining else { throw .undecodable }
            var to: [Int] = []
            for _ in 0..<count { to.append(version == 0 ? try reference.payload.u16() : try reference.payload.u32()) }
            references.append(Reference(type: reference.type, from: from, to: to))
            guard references.count <= Self.maxEntries else { throw .undecodable }
        }
    }

    private mutating func readLocations(_ box: inout Box) throws(ImagingError) {
        let (version, _) = try box.versionAndFlags()
        guard version <= 2 else { throw .undecodable }
        let sizes = try box.payload.u16()
        let offsetSize = sizes >> 12, lengthSize = sizes >> 8 & 15, baseSize = sizes >> 4 & 15
        let indexSize = version == 0 ? 0 : sizes & 15
        let count = version < 2 ? try box.payload.u16() : try box.payload.u32()
        guard count <= Self.maxEntries else { throw .undecodable }
        for _ in 0..<count {
            let id = version < 2 ? try box.payload.u16() : try box.payload.u32()
            let method = version == 0 ? 0 : try box.payload.u16() & 15
            _ = try box.payload.u16()                                    // data_reference_index
            let base = try box.payload.unsigned(size: baseSize)
            let extentCount = try box.payload.u16()
            var extents: [Extent] = []
            for _ in 0..<extentCount {
                _ = try box.payload.unsigned(size: indexSize)
                let offset = try box.payload.unsigned(size: offsetSize)
                let length = try box.payload.unsigned(size: lengthSize)
                let (start, overflow) = base.addingReportingOverflow(offset)
                guard !overflow else { throw .undecodable }
                extents.append(Extent(offset: start, length: length))
            }
            // Method 2 (data from another item) is not something these files use.
            guard method <= 1 else { throw .undecodable }
            guard locations[id] == nil else { throw .undecodable }
            locations[id] = (extents, method == 1)
        }
    }

    private mutating func readProperties(_ iprp: Box) throws(ImagingError) {
        for var box in try Box.children(of: iprp.payload, limit: 64) {
            if box.type == FourCC("ipco") {
                properties = try Box.children(of: box.payload, limit: Self.maxEntries)
            } else if box.type == FourCC("ipma") {
                let (version, flags) = try box.versionAndFlags()
                let count = try box.payload.u32()
                guard count <= Self.maxEntries else { throw .undecodable }
                for _ in 0..<count {
                    let id = version < 1 ? try box.payload.u16() : try box.payload.u32()
                    let associationCount = Int(try box.payload.u8())
                    var indexes: [Int] = []
                    for _ in 0..<associationCount {
                        let index = flags & 1 == 1 ? try box.payload.u16() & 0x7FFF : Int(try box.payload.u8() & 0x7F)
                        if index > 0 { indexes.append(index - 1) }
                    }
                    self.associations[id, default: []] += indexes
                }
            }
        }
    }

    /// The item's property boxes of one type.
    func properties(of item: Item, _ type: FourCC) throws(ImagingError) -> [Box] {
        try item.properties.map { index throws(ImagingError) -> Box in
            guard index < properties.count else { throw .undecodable }
            return properties[index]
        }.filter { $0.type == type }
    }

    /// The one property of `type` an item must have.
    func property(of item: Item, _ type: FourCC) throws(ImagingError) -> Box {
        let found = try properties(of: item, type)
        guard found.count == 1, let box = found.first else { throw .undecodable }
        return box
    }

    /// The item's data, extent by extent, each checked to lie within the file (or `idat`).
    func data(of item: Item) throws(ImagingError) -> [ByteCursor] {
        let source = item.inIDAT ? idat : ByteCursor(bytes)
        guard let source, !item.extents.isEmpty else { throw .undecodable }
        return try item.extents.map { extent throws(ImagingError) -> ByteCursor in
            let start = source.offset + extent.offset
            // Length 0: to the end of the source (ISO/IEC 14496-12 8.11.3.3).
            let length = extent.length == 0 ? source.end - start : extent.length
            guard extent.offset <= source.remaining, length >= 0, length <= source.end - start else { throw .undecodable }
            return ByteCursor(bytes, from: start, to: start + length)
        }
    }

    func referenced(from id: Int, _ type: FourCC) -> [Int] {
        references.filter { $0.from == id && $0.type == type }.flatMap(\.to)
    }
}
