/// Why a received value is not a valid relay frame.
public enum FrameError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The high nibble of byte 0 is not the relay marker `0xB`; the value carries this first byte.
    case notRelayFrame(firstByte: UInt8)
    /// A relay frame of a protocol version this implementation does not speak.
    case unsupportedVersion(UInt8)
    /// The value ends inside the frame header: `length` bytes where the header needs `required`.
    case truncatedHeader(length: Int, required: Int)
    /// Flag bits 2-7 must be zero; the frame had these flags.
    case reservedFlags(UInt8)
    /// The first chunk names a message kind this implementation does not know.
    case unknownKind(UInt8)
    /// A first chunk (FIRST flag) must carry sequence number 0; it carried this one.
    case firstChunkSequence(UInt16)
    /// The frame carries no payload byte. Only the single frame of an empty message may.
    case emptyPayload

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .notRelayFrame(let byte):
            "not a relay frame (first byte 0x\(hexByte(byte)))"
        case .unsupportedVersion(let version):
            "unsupported relay protocol version \(version)"
        case .truncatedHeader(let length, let required):
            "truncated frame header: \(length) bytes, header needs \(required)"
        case .reservedFlags(let flags):
            "reserved flag bits set (flags 0x\(hexByte(flags)))"
        case .unknownKind(let kind):
            "unknown message kind 0x\(hexByte(kind))"
        case .firstChunkSequence(let sequence):
            "first chunk with sequence number \(sequence), expected 0"
        case .emptyPayload:
            "frame without payload in a non-empty message"
        }
    }
}

/// Two lower-case hex digits.
func hexByte(_ byte: UInt8) -> String { Hex.string([byte]) }
