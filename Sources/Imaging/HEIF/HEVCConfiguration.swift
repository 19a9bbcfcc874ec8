/// What an `hvcC` box (ISO/IEC 14496-15 8.3.3) says of the frames it configures: the size its
/// sequence parameter set codes them at (H.265 7.3.2.2, after the conformance window's
/// crop), their chroma format and bit depth, and how long the NAL length prefixes are.
struct HEVCConfiguration: Equatable {
    var width: Int
    var height: Int
    var bitDepth: Int
    /// Bytes of each NAL unit's length prefix in the item's data (1, 2 or 4).
    var lengthSize: Int

    static let spsType = 33

    init(width: Int, height: Int, bitDepth: Int, lengthSize: Int) {
        self.width = width
        self.height = height
        self.bitDepth = bitDepth
        self.lengthSize = lengthSize
    }

    /// From an `hvcC` payload. Every SPS it holds must code the same size (a decoder takes the
    /// one the slices name; one that disagrees is refused rather than guessed at).
    init(hvcC payload: ByteCursor) throws(ImagingError) {
        var cursor = payload
        guard try cursor.u8() == 1 else { throw .undecodable }           // configurationVersion
        try cursor.skip(18)                                              // profile .. bitDepthChroma
        try cursor.skip(2)                                               // avgFrameRate
        let lengthSize = Int(try cursor.u8() & 3) + 1
        guard lengthSize != 3 else { throw .undecodable }
        let arrays = Int(try cursor.u8())
        var found: HEVCConfiguration?
        for _ in 0..<arrays {
            let type = Int(try cursor.u8() & 0x3F)
            let count = try cursor.u16()
            for _ in 0..<count {
                let length = try cursor.u16()
                guard type == Self.spsType else {
                    try cursor.skip(length)
                    continue
                }
                let sps = try Self.sequenceParameterSet(try cursor.copy(length), lengthSize: lengthSize)
                guard found == nil || found == sps else { throw .undecodable }
                found = sps
            }
        }
        guard let found else { throw .undecodable }
        self = found
    }

    /// The size an SPS NAL unit (with its 2-byte header) codes frames at.
    static func sequenceParameterSet(_ nal: [UInt8], lengthSize: Int) throws(ImagingError) -> HEVCConfiguration {
        guard nal.count > 2, Int(nal[0] >> 1 & 0x3F) == spsType else { throw .undecodable }
        var bits = BitReader(BitReader.rbsp(Array(nal[2...])))
        try bits.skip(4)                                                 // sps_video_parameter_set_id
        let subLayers = try bits.bits(3)                                 // sps_max_sub_layers_minus1
        guard subLayers <= 6 else { throw .undecodable }
        try bits.skip(1)                                                 // sps_temporal_id_nesting_flag
        try profileTierLevel(&bits, subLayers: subLayers)
        _ = try bits.exponentialGolomb()                                 // sps_seq_parameter_set_id
        let chroma = try bits.exponentialGolomb()
        guard chroma <= 3 else { throw .undecodable }
        let separatePlanes = chroma == 3 ? try bits.flag() : false
        let codedWidth = try bits.exponentialGolomb(), codedHeight = try bits.exponentialGolomb()
        var (left, right, top, bottom) = (0, 0, 0, 0)
        if try bits.flag() {                                             // conformance_window_flag
            left = try bits.exponentialGolomb(); right = try bits.exponentialGolomb()
            top = try bits.exponentialGolomb(); bottom = try bits.exponentialGolomb()
        }
        let depth = try bits.exponentialGolomb() + 8                     // bit_depth_luma_minus8
        // The crop is in chroma samples (H.265 Table 6-1): 2 luma columns a unit for 4:2:0 and
        // 4:2:2, 2 rows for 4:2:0, else 1.
        let arrayType = separatePlanes ? 0 : chroma
        let unitX = arrayType == 1 || arrayType == 2 ? 2 : 1, unitY = arrayType == 1 ? 2 : 1
        let width = codedWidth - unitX * (left + right), height = codedHeight - unitY * (top + bottom)
        guard codedWidth > 0, codedHeight > 0, width > 0, height > 0, depth <= 16 else { throw .undecodable }
        return HEVCConfiguration(width: width, height: height, bitDepth: depth, lengthSize: lengthSize)
    }

    /// profile_tier_level(1, sps_max_sub_layers_minus1) (H.265 7.3.3), skipped.
    private static func profileTierLevel(_ bits: inout BitReader, subLayers: Int) throws(ImagingError) {
        try bits.skip(88 + 8)                                            // general profile, general_level_idc
        var profilePresent: [Bool] = [], levelPresent: [Bool] = []
        for _ in 0..<subLayers {
            profilePresent.append(try bits.flag())
            levelPresent.append(try bits.flag())
        }
        if subLayers > 0 { try bits.skip(2 * (8 - subLayers)) }         // reserved_zero_2bits
        for layer in 0..<subLayers {
            if profilePresent[layer] { try bits.skip(88) }
            if levelPresent[layer] { try bits.skip(8) }
        }
    }
}
