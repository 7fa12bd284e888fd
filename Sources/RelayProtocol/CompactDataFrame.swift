/// A data frame in 2 header bytes, for small values (docs/protocol.md, "Compact data frames"):
/// at ATT MTU 23 a value holds 20 bytes, and the 10-byte header of a `DataFrame` would take half.
///
/// ```
/// 0     0b11 and offset bits 13-8 (0xC0-0xFF)
/// 1     offset bits 7-0
/// 2...  at least one stream byte; never exactly 2 (the value would be 4 bytes: a counter)
/// ```
///
/// It names neither the session nor the transfer, and gives the offset modulo 16384: it belongs to
/// the message its receiver has in progress, and the receiver places it within `span` bytes of the
/// first byte it lacks (`offset(near:)`). A sender only sends one when both sides said version 3
/// in the handshake, the receiver acknowledged that message on this link, the frame repeats no
/// byte sent before, and it lies within `span` bytes of the first byte not yet acknowledged.
public struct CompactDataFrame: Sendable, Hashable {
    /// Header bytes before the data.
    public static let headerLength = 2
    /// Bits 7-6 of byte 0 of every compact frame (a session frame's byte 0 is `0xB2`).
    public static let marker: UInt8 = 0xC0
    /// Offsets are sent modulo this.
    public static let modulus = 1 << 14
    /// How far a compact frame may lie from the receiver's first missing byte, either way.
    public static let span = modulus / 2
    /// Values of at most this many bytes carry compact frames; larger ones lose less than a tenth
    /// to the full header.
    public static let largestValue = 100

    /// The frame's offset modulo `modulus`.
    public var residue: Int
    public var bytes: [UInt8]

    /// The frame of `bytes` at stream offset `offset` (sent as `offset` modulo 16384).
    public init(offset: Int, bytes: [UInt8]) {
        precondition(offset >= 0 && !bytes.isEmpty && bytes.count != 2)
        residue = offset % Self.modulus
        self.bytes = bytes
    }

    /// Whether `count` stream bytes may travel in a compact frame (not 0, not 2).
    public static func canCarry(_ count: Int) -> Bool { count > 0 && count != 2 }

    public var encodedLength: Int { Self.headerLength + bytes.count }

    public func encode(into bytes: inout [UInt8]) {
        bytes.append(Self.marker | UInt8(residue >> 8))
        bytes.append(UInt8(residue & 0xFF))
        bytes.append(contentsOf: self.bytes)
    }

    /// The frame's bytes.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encodedLength)
        encode(into: &bytes)
        return bytes
    }

    /// Whether a value's first byte marks a compact frame.
    public static func isCompact(firstByte: UInt8) -> Bool { firstByte & 0xC0 == marker }

    public init(parsing bytes: some Collection<UInt8>) throws(SessionFrameError) {
        guard let first = bytes.first, Self.isCompact(firstByte: first) else {
            throw .notSessionFrame(firstByte: bytes.first ?? 0)
        }
        guard bytes.count > Self.headerLength else { throw .emptyData }
        var reader = WireReader(bytes)
        let high = Int(reader.uint8() & 0x3F)
        residue = high << 8 | Int(reader.uint8())
        self.bytes = reader.rest()
    }

    /// The stream offset this frame has for a receiver whose first missing byte is `received`:
    /// the one within `span` of it (below it only a duplicate lies); nil below offset 0.
    public func offset(near received: Int) -> Int? {
        let base = received - Self.span
        let distance = ((residue - base) % Self.modulus + Self.modulus) % Self.modulus
        let offset = base + distance
        guard offset >= 0, offset + bytes.count <= Int(UInt32.max) else { return nil }
        return offset
    }
}
