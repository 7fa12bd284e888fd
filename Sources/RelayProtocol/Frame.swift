/// One relay frame: a header and a chunk of the message payload. Every characteristic value
/// that is not exactly 4 bytes long is a frame.
public struct Frame: Sendable, Hashable {
    /// The frame header.
    public var header: FrameHeader
    /// The chunk of message bytes the frame carries.
    public var payload: [UInt8]

    /// A frame. Any combination can be built (tests build invalid ones); `MessageFrames` builds valid ones.
    public init(header: FrameHeader, payload: [UInt8]) {
        self.header = header
        self.payload = payload
    }

    /// Header length plus payload length.
    public var encodedLength: Int { header.encodedLength + payload.count }

    /// Appends the frame bytes to `bytes`.
    public func encode(into bytes: inout [UInt8]) {
        header.encode(into: &bytes)
        bytes.append(contentsOf: payload)
    }

    /// The frame bytes, ready to be written as a characteristic value.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encodedLength)
        encode(into: &bytes)
        return bytes
    }

    /// Parses a received value as a frame.
    public init(parsing bytes: some Collection<UInt8>) throws(FrameError) {
        header = try FrameHeader(parsing: bytes)
        payload = Array(bytes.dropFirst(header.encodedLength))
    }
}

/// A received characteristic value, classified: a 4-byte counter or a frame.
public enum InboundValue: Sendable, Hashable {
    /// A value of exactly 4 bytes.
    case counter(Counter)
    /// Any other value.
    case frame(Frame)

    /// Classifies and parses a received value.
    public init(parsing bytes: some Collection<UInt8>) throws(FrameError) {
        if bytes.count == Counter.encodedLength {
            do {
                self = .counter(try Counter(parsing: bytes))
            } catch {
                preconditionFailure("a 4-byte value is always a counter: \(error)")
            }
        } else {
            self = .frame(try Frame(parsing: bytes))
        }
    }
}
