/// Reads little-endian fields from the front of a received value, for the session frame codecs.
struct WireReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: some Collection<UInt8>) {
        self.bytes = Array(bytes)
    }

    /// Bytes not read yet.
    var remaining: Int { bytes.count - offset }

    mutating func uint8() -> UInt8 {
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint16() -> UInt16 {
        defer { offset += 2 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    mutating func uint32() -> UInt32 {
        defer { offset += 4 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
    }

    mutating func take(_ count: Int) -> [UInt8] {
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// Everything not read yet.
    mutating func rest() -> [UInt8] { take(remaining) }
}
