/// The flag byte of a frame header (byte 1).
public struct FrameFlags: OptionSet, Sendable, Hashable {
    /// The flag byte.
    public let rawValue: UInt8

    /// Flags from a flag byte.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Bit 0: the frame is the first chunk of a message and carries its `MessageStart`.
    public static let first = FrameFlags(rawValue: 0x01)
    /// Bit 1: the frame is the last chunk of a message.
    public static let last = FrameFlags(rawValue: 0x02)
    /// Bits 2-7: reserved, always zero.
    public static let reserved = FrameFlags(rawValue: 0xFC)
}

/// What the first chunk of a message declares about the whole message (header bytes 5-13).
public struct MessageStart: Sendable, Hashable {
    /// The message kind.
    public var kind: MessageKind
    /// The length of the whole message in bytes.
    public var totalLength: UInt32
    /// CRC-32C of the whole message.
    public var checksum: UInt32

    /// A first-chunk declaration.
    public init(kind: MessageKind, totalLength: UInt32, checksum: UInt32) {
        self.kind = kind
        self.totalLength = totalLength
        self.checksum = checksum
    }
}

/// The header of a relay frame: 5 bytes, plus 9 on the first chunk of a message.
///
/// ```
/// byte 0     0xB1: marker 0xB (high nibble), version 1 (low nibble)
/// byte 1     flags: bit 0 FIRST, bit 1 LAST, bits 2-7 zero
/// byte 2     message id
/// byte 3-4   chunk sequence number, UInt16 little-endian
/// byte 5     kind                     (first chunk only)
/// byte 6-9   total length, UInt32 LE  (first chunk only)
/// byte 10-13 CRC-32C, UInt32 LE       (first chunk only)
/// ```
public struct FrameHeader: Sendable, Hashable {
    /// The marker nibble in the high half of byte 0.
    public static let marker: UInt8 = 0xB
    /// The protocol version in the low half of byte 0.
    public static let version: UInt8 = RelayProtocolVersion.current
    /// Byte 0 of every frame this implementation sends.
    public static let markerByte: UInt8 = marker << 4 | version
    /// Header length of a continuation chunk.
    public static let continuationLength = 5
    /// Header length of a first chunk.
    public static let firstLength = 14

    /// The message the frame belongs to.
    public var messageID: MessageID
    /// The chunk's position in its message: 0 on the first chunk, +1 per chunk, wrapping.
    public var sequence: UInt16
    /// Whether this is the last chunk of the message (LAST flag).
    public var isLast: Bool
    /// The whole-message declaration; present exactly on the first chunk (FIRST flag).
    public var start: MessageStart?

    /// A header; `start` makes it a first chunk.
    public init(messageID: MessageID, sequence: UInt16, isLast: Bool, start: MessageStart?) {
        self.messageID = messageID
        self.sequence = sequence
        self.isLast = isLast
        self.start = start
    }

    /// Whether this is the first chunk of the message (FIRST flag).
    public var isFirst: Bool { start != nil }

    /// The flag byte.
    public var flags: FrameFlags {
        var flags: FrameFlags = []
        if isFirst { flags.insert(.first) }
        if isLast { flags.insert(.last) }
        return flags
    }

    /// 14 on a first chunk, 5 otherwise.
    public var encodedLength: Int { isFirst ? Self.firstLength : Self.continuationLength }

    /// Appends the header bytes to `bytes`.
    public func encode(into bytes: inout [UInt8]) {
        bytes.append(Self.markerByte)
        bytes.append(flags.rawValue)
        bytes.append(messageID.value)
        appendLittleEndian(sequence, to: &bytes)
        if let start {
            bytes.append(start.kind.rawValue)
            appendLittleEndian(start.totalLength, to: &bytes)
            appendLittleEndian(start.checksum, to: &bytes)
        }
    }

    /// Writes the `encodedLength` header bytes at `destination`.
    func write(to destination: UnsafeMutableRawPointer) {
        destination.storeBytes(of: Self.markerByte, as: UInt8.self)
        destination.storeBytes(of: flags.rawValue, toByteOffset: 1, as: UInt8.self)
        destination.storeBytes(of: messageID.value, toByteOffset: 2, as: UInt8.self)
        destination.storeBytes(of: sequence.littleEndian, toByteOffset: 3, as: UInt16.self)
        if let start {
            destination.storeBytes(of: start.kind.rawValue, toByteOffset: 5, as: UInt8.self)
            destination.storeBytes(of: start.totalLength.littleEndian, toByteOffset: 6, as: UInt32.self)
            destination.storeBytes(of: start.checksum.littleEndian, toByteOffset: 10, as: UInt32.self)
        }
    }

    /// Parses the header at the beginning of `bytes`; the rest of `bytes` is the payload.
    ///
    /// Also checks the payload rule: only the single frame of an empty message carries no payload.
    public init(parsing bytes: some Collection<UInt8>) throws(FrameError) {
        let parsed: Result<FrameHeader, FrameError>? = bytes.withContiguousStorageIfAvailable {
            Self.parseResult(UnsafeRawBufferPointer($0))
        }
        self = try (parsed ?? Array(bytes).withUnsafeBytes { Self.parseResult($0) }).get()
    }

    private static func parseResult(_ value: UnsafeRawBufferPointer) -> Result<FrameHeader, FrameError> {
        do {
            return .success(try parse(value))
        } catch {
            return .failure(error)
        }
    }

    /// Parses and validates the header of the frame `value` (header and payload).
    static func parse(_ value: UnsafeRawBufferPointer) throws(FrameError) -> FrameHeader {
        guard value.count >= 1 else { throw .truncatedHeader(length: 0, required: continuationLength) }
        let first = value[0]
        guard first >> 4 == marker else { throw .notRelayFrame(firstByte: first) }
        guard first & 0x0F == version else { throw .unsupportedVersion(first & 0x0F) }
        guard value.count >= continuationLength else {
            throw .truncatedHeader(length: value.count, required: continuationLength)
        }
        let flags = FrameFlags(rawValue: value[1])
        guard flags.isDisjoint(with: .reserved) else { throw .reservedFlags(flags.rawValue) }
        let id = MessageID(value[2])
        let sequence = UInt16(value[3]) | UInt16(value[4]) << 8
        let isLast = flags.contains(.last)
        guard flags.contains(.first) else {
            guard value.count > continuationLength else { throw .emptyPayload }
            return FrameHeader(messageID: id, sequence: sequence, isLast: isLast, start: nil)
        }
        guard value.count >= firstLength else { throw .truncatedHeader(length: value.count, required: firstLength) }
        guard let kind = MessageKind(rawValue: value[5]) else { throw .unknownKind(value[5]) }
        guard sequence == 0 else { throw .firstChunkSequence(sequence) }
        let totalLength = loadLittleEndianUInt32(value, at: 6)
        let checksum = loadLittleEndianUInt32(value, at: 10)
        guard value.count > firstLength || (isLast && totalLength == 0) else { throw .emptyPayload }
        let start = MessageStart(kind: kind, totalLength: totalLength, checksum: checksum)
        return FrameHeader(messageID: id, sequence: 0, isLast: isLast, start: start)
    }
}

func appendLittleEndian(_ value: UInt16, to bytes: inout [UInt8]) {
    bytes.append(UInt8(truncatingIfNeeded: value))
    bytes.append(UInt8(truncatingIfNeeded: value >> 8))
}

func appendLittleEndian(_ value: UInt32, to bytes: inout [UInt8]) {
    bytes.append(UInt8(truncatingIfNeeded: value))
    bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    bytes.append(UInt8(truncatingIfNeeded: value >> 16))
    bytes.append(UInt8(truncatingIfNeeded: value >> 24))
}

func loadLittleEndianUInt32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
    UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
        | UInt32(bytes[offset + 3]) << 24
}
