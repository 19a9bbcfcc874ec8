/// xxHash64 (Yann Collet's XXH64, seed 0) of a byte buffer: the hash behind the JSON answers'
/// `ETag`s (`EntityTag.strong(of:)`).
///
/// Why this hash and not SHA-256: an ETag only has to change when the body changes; nobody gains
/// by making two bodies collide (a client only ever compares tags of bodies it was itself sent
/// for one URL), so it is not a security boundary and needs no cryptographic hash. Why not
/// FNV-1a: it takes one byte per multiply, in one dependency chain; XXH64 reads 8 bytes per
/// step in four independent lanes, several GB/s, so a feed page's few tens of KB cost
/// microseconds. And HTTP does not depend on Crypto (docs/ARCHITECTURE.md). An accidental
/// collision between a URL's old and new body is a 2^-64 chance.
/// Reference: https://github.com/Cyan4973/xxHash/blob/dev/doc/xxhash_spec.md
enum XXH64 {
    static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    @inline(__always) static func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 - r)) }

    @inline(__always) static func round(_ acc: UInt64, _ input: UInt64) -> UInt64 {
        rotl(acc &+ input &* prime2, 31) &* prime1
    }

    @inline(__always) static func merge(_ acc: UInt64, _ value: UInt64) -> UInt64 {
        (acc ^ round(0, value)) &* prime1 &+ prime4
    }

    static func hash(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { hash($0) }
    }

    static func hash(_ buffer: UnsafeRawBufferPointer) -> UInt64 {
        let length = buffer.count
        var offset = 0
        var h: UInt64
        // Little-endian reads, as the specification says (x86-64 and arm64 Linux are).
        @inline(__always) func read64(_ at: Int) -> UInt64 { UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        @inline(__always) func read32(_ at: Int) -> UInt64 { UInt64(UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: at, as: UInt32.self))) }
        if length >= 32 {
            var v1 = prime1 &+ prime2, v2 = prime2, v3: UInt64 = 0, v4: UInt64 = 0 &- prime1
            while offset + 32 <= length {
                v1 = round(v1, read64(offset))
                v2 = round(v2, read64(offset + 8))
                v3 = round(v3, read64(offset + 16))
                v4 = round(v4, read64(offset + 24))
                offset += 32
            }
            h = rotl(v1, 1) &+ rotl(v2, 7) &+ rotl(v3, 12) &+ rotl(v4, 18)
            h = merge(h, v1)
            h = merge(h, v2)
            h = merge(h, v3)
            h = merge(h, v4)
        } else {
            h = prime5
        }
        h = h &+ UInt64(length)
        while offset + 8 <= length {
            h ^= round(0, read64(offset))
            h = rotl(h, 27) &* prime1 &+ prime4
            offset += 8
        }
        if offset + 4 <= length {
            h ^= read32(offset) &* prime1
            h = rotl(h, 23) &* prime2 &+ prime3
            offset += 4
        }
        while offset < length {
            h ^= UInt64(buffer[offset]) &* prime5
            h = rotl(h, 11) &* prime1
            offset += 1
        }
        h ^= h >> 33
        h = h &* prime2
        h ^= h >> 29
        h = h &* prime3
        h ^= h >> 32
        return h
    }
}
