/// HEIF files written by hand for the picture tests and bench/picture-memory.sh: one coded
/// frame that libheif encoded (through libvips) taken out of its file, and put back into a
/// file of the test's making: alone, or as every tile of a grid (iPhones write 512 x 512
/// tiles), with an `ispe` that tells the truth or lies, and HEIC's or AVIF's brands. A grid of
/// one small tile repeated (its data stored once) codes a huge frame in a few kilobytes: the
/// decompression bombs of issue 43.
public enum HEIFFiles {
    /// A coded frame: its item type (`hvc1`, `av01`), its configuration property box whole
    /// (`hvcC`, `av1C`), its data, and the size it is coded at.
    public struct CodedImage: Sendable {
        public var itemType: String
        public var configuration: [UInt8]
        public var data: [UInt8]
        public var width: Int
        public var height: Int
    }

    public static let heicBrands = ["heic", "mif1", "heic"]
    public static let avifBrands = ["avif", "mif1", "avif", "miaf"]

    /// The primary image of a single-image file as libheif writes it; nil for anything else.
    public static func codedImage(of file: [UInt8]) -> CodedImage? {
        guard let meta = boxes(file[...]).first(where: { $0.type == "meta" }) else { return nil }
        let children = boxes(meta.payload.dropFirst(4))
        func child(_ type: String) -> ArraySlice<UInt8>? { children.first(where: { $0.type == type })?.payload }
        guard let iinf = child("iinf"), let iprp = child("iprp"), let iloc = child("iloc") else { return nil }
        // The one infe (libheif writes one for a picture without metadata).
        guard let infe = boxes(iinf.dropFirst(6)).first(where: { $0.type == "infe" })?.payload, infe.count >= 12 else { return nil }
        let itemType = String(decoding: infe.dropFirst(8).prefix(4), as: UTF8.self)
        let properties = boxes(iprp)
        guard let ipco = properties.first(where: { $0.type == "ipco" }) else { return nil }
        let held = boxes(ipco.payload)
        guard let ispe = held.first(where: { $0.type == "ispe" })?.payload, ispe.count >= 12,
              let configuration = held.first(where: { $0.type == "hvcC" || $0.type == "av1C" }) else { return nil }
        // iloc as libheif writes it: version 0 or 1, the item's one extent.
        let bytes = Array(iloc)
        let version = Int(bytes[0]), offsetSize = Int(bytes[4] >> 4), lengthSize = Int(bytes[4] & 15), baseSize = Int(bytes[5] >> 4)
        var at = 6 + 2 + 2 + (version >= 1 ? 2 : 0) + 2 + baseSize + 2   // count, id, method, data ref, base, extents
        func read(_ size: Int) -> Int {
            defer { at += size }
            return bytes[at..<at + size].reduce(0) { $0 << 8 | Int($1) }
        }
        let base = baseSize == 0 ? 0 : bytes[(at - 2 - baseSize)..<(at - 2)].reduce(0) { $0 << 8 | Int($1) }
        let offset = base + read(offsetSize), length = read(lengthSize)
        guard offset + length <= file.count else { return nil }
        let ispeBytes = Array(ispe)
        return CodedImage(itemType: itemType, configuration: Array(configuration.whole), data: Array(file[offset..<offset + length]),
                          width: int(ispeBytes, 4), height: int(ispeBytes, 8))
    }

    /// A file of one coded frame, its `ispe` saying `claimed` (its coded size by default).
    public static func single(_ image: CodedImage, claimed: (Int, Int)? = nil, brands: [String] = heicBrands) -> [UInt8] {
        let (width, height) = claimed ?? (image.width, image.height)
        return file(brands: brands, primary: 1,
                    items: [(1, image.itemType, [ispe(width, height), image.configuration])],
                    references: [], data: [(1, image.data)])
    }

    /// A grid of `rows` x `columns` tiles, each `tile` (its data stored once), saying the
    /// output is `output` in its descriptor and `claimed` in its `ispe` (the output by default).
    public static func grid(_ tile: CodedImage, rows: Int, columns: Int, output: (Int, Int)? = nil, claimed: (Int, Int)? = nil,
                            brands: [String] = heicBrands) -> [UInt8] {
        grid(Array(repeating: tile, count: rows * columns), rows: rows, columns: columns, output: output, claimed: claimed, brands: brands)
    }

    /// `irot`: the image turned `quarterTurns` times anticlockwise when displayed.
    public static func rotation(_ quarterTurns: Int) -> [UInt8] { box("irot", [UInt8(quarterTurns & 3)]) }

    /// A grid of the given tiles, row by row (all of one size).
    public static func grid(_ tileList: [CodedImage], rows: Int, columns: Int, output: (Int, Int)? = nil, claimed: (Int, Int)? = nil,
                            brands: [String] = heicBrands, transformations: [[UInt8]] = []) -> [UInt8] {
        let tile = tileList[0]
        let (width, height) = output ?? (tile.width * columns, tile.height * rows)
        let (claimedWidth, claimedHeight) = claimed ?? (width, height)
        let wide = width > 0xFFFF || height > 0xFFFF
        var descriptor: [UInt8] = [0, wide ? 1 : 0, UInt8(rows - 1), UInt8(columns - 1)]
        descriptor += wide ? u32(width) + u32(height) : u16(width) + u16(height)
        let tiles = Array(2..<(2 + rows * columns))
        var items: [(Int, String, [[UInt8]])] = [(1, "grid", [ispe(claimedWidth, claimedHeight)] + transformations)]
        for (id, each) in zip(tiles, tileList) { items.append((id, each.itemType, [ispe(each.width, each.height), each.configuration])) }
        var data: [(Int, [UInt8])] = [(1, descriptor)]
        for (id, each) in zip(tiles, tileList) { data.append((id, each.data)) }
        // The descriptor in `idat` (construction method 1), as iPhones write it.
        return file(brands: brands, primary: 1, items: items, references: [("dimg", 1, tiles)], data: data, inIDAT: [1])
    }

    // MARK: Writing

    /// Items with their properties (each item's own boxes; identical boxes are shared), the
    /// references, and each item's data, laid out in `mdat` (data equal to an earlier item's is
    /// stored once and pointed at twice).
    static func file(brands: [String], primary: Int, items: [(id: Int, type: String, properties: [[UInt8]])],
                     references: [(type: String, from: Int, to: [Int])], data: [(id: Int, bytes: [UInt8])],
                     inIDAT: Set<Int> = []) -> [UInt8] {
        let ftyp = box("ftyp", Array(brands[0].utf8) + u32(0) + brands.dropFirst().flatMap { Array($0.utf8) })
        var properties: [[UInt8]] = []
        var associations: [(Int, [Int])] = []
        for item in items {
            var indexes: [Int] = []
            for property in item.properties {
                if let index = properties.firstIndex(of: property) { indexes.append(index + 1) } else {
                    properties.append(property)
                    indexes.append(properties.count)
                }
            }
            associations.append((item.id, indexes))
        }
        var ipma = u32(0) + u32(associations.count)
        for (id, indexes) in associations {
            ipma += u16(id) + [UInt8(indexes.count)] + indexes.map { UInt8(0x80 | $0) }
        }
        // Data laid out once per distinct content.
        var mdatBody: [UInt8] = []
        var idatBody: [UInt8] = []
        var placed: [(offset: Int, length: Int)] = []
        var seen: [[UInt8]: Int] = [:]
        for (id, bytes) in data {
            if inIDAT.contains(id) {
                placed.append((idatBody.count, bytes.count))
                idatBody += bytes
                continue
            }
            if let offset = seen[bytes] { placed.append((offset, bytes.count)); continue }
            seen[bytes] = mdatBody.count
            placed.append((mdatBody.count, bytes.count))
            mdatBody += bytes
        }
        func meta(mdatStart: Int) -> [UInt8] {
            let hdlr = box("hdlr", u32(0) + u32(0) + Array("pict".utf8) + u32(0) + u32(0) + u32(0) + [0])
            let pitm = box("pitm", u32(0) + u16(primary))
            let iinf = box("iinf", u32(0) + u16(items.count) + items.flatMap { item in
                box("infe", u32(2 << 24) + u16(item.id) + u16(0) + Array(item.type.utf8) + [0])
            })
            let iref = box("iref", u32(0) + references.flatMap { reference in
                box(reference.type, u16(reference.from) + u16(reference.to.count) + reference.to.flatMap(u16))
            })
            let iprp = box("iprp", box("ipco", properties.flatMap { $0 }) + box("ipma", ipma))
            // Version 1: each item says where its data is (0: the file, 1: idat).
            var iloc = u32(1 << 24) + [0x44, 0x00] + u16(data.count)
            for ((id, _), (offset, length)) in zip(data, placed) {
                let here = inIDAT.contains(id)
                iloc += u16(id) + u16(here ? 1 : 0) + u16(0) + u16(1) + u32(here ? offset : mdatStart + offset) + u32(length)
            }
            let idat = idatBody.isEmpty ? [] : box("idat", idatBody)
            return box("meta", u32(0) + hdlr + pitm + iinf + (references.isEmpty ? [] : iref) + iprp + box("iloc", iloc) + idat)
        }
        let metaSize = meta(mdatStart: 0).count
        let mdatStart = ftyp.count + metaSize + 8
        return ftyp + meta(mdatStart: mdatStart) + box("mdat", mdatBody)
    }

    static func ispe(_ width: Int, _ height: Int) -> [UInt8] { box("ispe", u32(0) + u32(width) + u32(height)) }

    public static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { u32(8 + payload.count) + Array(type.utf8) + payload }
    static func u32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
    static func u16(_ value: Int) -> [UInt8] { [8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
    static func int(_ bytes: [UInt8], _ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }

    // MARK: Reading (libheif's own files only)

    struct RawBox { let type: String; let payload: ArraySlice<UInt8>; let whole: ArraySlice<UInt8> }

    static func boxes(_ bytes: ArraySlice<UInt8>) -> [RawBox] {
        var found: [RawBox] = []
        var at = bytes.startIndex
        while at + 8 <= bytes.endIndex {
            let size = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8, at + size <= bytes.endIndex else { break }
            found.append(RawBox(type: String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self),
                                payload: bytes[(at + 8)..<(at + size)], whole: bytes[at..<(at + size)]))
            at += size
        }
        return found
    }
}
