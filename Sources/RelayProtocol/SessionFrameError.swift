/// Why a value on the session characteristic is not a valid version-2 frame.
public enum SessionFrameError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Byte 0 is not `0xB2`.
    case notSessionFrame(firstByte: UInt8)
    /// Byte 1 names no frame type this implementation knows.
    case unknownType(UInt8)
    /// A frame of another type than the one being parsed.
    case wrongType(expected: SessionFrameType, got: SessionFrameType)
    /// The value ends before the frame does: `length` bytes where `required` are needed.
    case truncated(SessionFrameType, length: Int, required: Int)
    /// A frame of a fixed length came with more bytes.
    case trailingBytes(SessionFrameType, length: Int, expected: Int)
    /// Reserved bits are set.
    case reservedBits(SessionFrameType, UInt8)
    /// A hello announcing a version below 2, or a welcome naming a version other than 2 or 3 (the
    /// ones this implementation speaks, so the only ones both can speak).
    case unsupportedVersion(SessionFrameType, UInt8)
    /// A token field holds 0, which is not a token.
    case zeroToken(SessionFrameType)
    /// A session field holds 0 (or 255 where one central is meant).
    case invalidSession(SessionFrameType, UInt8)
    /// An acknowledgement's status byte is not one this implementation knows.
    case unknownStatus(UInt8)
    /// An abort's reason byte is not one this implementation knows.
    case unknownReason(UInt8)
    /// An acknowledgement's ranges are empty, out of order, overlapping or below its cumulative point.
    case badRanges
    /// A data frame without data.
    case emptyData
    /// A compact data frame from a peer whose handshake did not agree on version 3.
    case compactNotAgreed
    /// A counter (4 bytes) on the L2CAP lane: counters go on GATT, and a channel could carry
    /// a thousand in one service data unit, each a line and an echo.
    case counterOnLane

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .notSessionFrame(let byte): "not a relay session frame (first byte 0x\(hexByte(byte)))"
        case .unknownType(let type): "unknown session frame type 0x\(hexByte(type))"
        case .wrongType(let expected, let got): "a \(got) frame where a \(expected) frame was expected"
        case .truncated(let type, let length, let required):
            "truncated \(type) frame: \(length) bytes, needs \(required)"
        case .trailingBytes(let type, let length, let expected):
            "\(type) frame of \(length) bytes, expected \(expected)"
        case .reservedBits(let type, let bits): "\(type) frame with reserved bits set (0x\(hexByte(bits)))"
        case .unsupportedVersion(let type, let version): "\(type) frame of unsupported version \(version)"
        case .zeroToken(let type): "\(type) frame with token 0"
        case .invalidSession(let type, let value): "\(type) frame with session number \(value)"
        case .unknownStatus(let status): "acknowledgement with unknown status 0x\(hexByte(status))"
        case .unknownReason(let reason): "abort with unknown reason 0x\(hexByte(reason))"
        case .badRanges: "acknowledgement with ranges out of order"
        case .emptyData: "data frame without data"
        case .compactNotAgreed: "compact data frame, but the handshake did not agree on version 3"
        case .counterOnLane: "a counter on the L2CAP lane (counters go on GATT)"
        }
    }
}
