/// The frames of one message, produced lazily for a link's MTU: a `Sequence` of characteristic values.
///
/// The first frame carries 14 header bytes and up to `maxValueLength - 14` message bytes, every
/// following frame 5 header bytes and up to `maxValueLength - 5` message bytes, where
/// `maxValueLength` is the MTU's `sendValueLength` for the carrier. The CRC-32C of
/// the message is computed once, when the frames are created.
public struct MessageFrames: Sequence, IteratorProtocol, Sendable {
    /// The message being framed.
    public let message: Message
    /// The identifier every frame carries.
    public let id: MessageID
    /// The link MTU the frames are sized for.
    public let mtu: MTU
    /// How the frames cross the link (written or notified).
    public let carrier: ValueCarrier
    /// The longest value produced: `mtu.sendValueLength(carrier)`.
    public var maxValueLength: Int { mtu.sendValueLength(carrier) }
    /// CRC-32C of the whole message.
    public let checksum: UInt32

    private var offset = 0
    private var sequence: UInt16 = 0
    private var finished = false

    /// The frames of `message` with identifier `id`, sized for `mtu` and `carrier`.
    ///
    /// - Precondition: the message is shorter than 4 GiB (its length must fit the UInt32 length field).
    public init(message: Message, id: MessageID, mtu: MTU, carrier: ValueCarrier) {
        precondition(message.bytes.count <= Int(UInt32.max), "a relay message is shorter than 4 GiB")
        self.message = message
        self.id = id
        self.mtu = mtu
        self.carrier = carrier
        self.checksum = message.bytes.withUnsafeBytes { CRC32C.checksum($0) }
    }

    /// The number of frames a message of `length` bytes needs at `mtu` as `carrier`.
    public static func frameCount(messageLength length: Int, mtu: MTU, carrier: ValueCarrier) -> Int {
        let firstCapacity = mtu.sendValueLength(carrier) - FrameHeader.firstLength
        let continuationCapacity = mtu.sendValueLength(carrier) - FrameHeader.continuationLength
        guard length > firstCapacity else { return 1 }
        let rest = length - firstCapacity
        return 1 + (rest + continuationCapacity - 1) / continuationCapacity
    }

    /// The header bytes a message of `length` bytes costs at `mtu` as `carrier`: 5 per frame plus 9.
    public static func framingOverhead(messageLength length: Int, mtu: MTU, carrier: ValueCarrier) -> Int {
        frameCount(messageLength: length, mtu: mtu, carrier: carrier) * FrameHeader.continuationLength
            + (FrameHeader.firstLength - FrameHeader.continuationLength)
    }

    /// The total number of frames of this message.
    public var count: Int { Self.frameCount(messageLength: message.bytes.count, mtu: mtu, carrier: carrier) }

    /// The number of frames not yet produced, or 0 once finished.
    public var underestimatedCount: Int {
        if finished { return 0 }
        if offset == 0 && sequence == 0 { return count }
        let continuationCapacity = maxValueLength - FrameHeader.continuationLength
        return (message.bytes.count - offset + continuationCapacity - 1) / continuationCapacity
    }

    /// The next frame as a new value, or nil after the last one.
    public mutating func next() -> [UInt8]? {
        guard !finished else { return nil }
        let frame = nextFrame()
        let value = [UInt8](unsafeUninitializedCapacity: frame.length) { buffer, count in
            write(frame, to: UnsafeMutableRawBufferPointer(buffer))
            count = frame.length
        }
        advance(past: frame)
        return value
    }

    /// Replaces the contents of `value` with the next frame, reusing its storage; false after the last one.
    public mutating func next(into value: inout [UInt8]) -> Bool {
        guard !finished else { return false }
        let frame = nextFrame()
        if value.count > frame.length {
            value.removeLast(value.count - frame.length)
        } else if value.count < frame.length {
            value.append(contentsOf: repeatElement(0, count: frame.length - value.count))
        }
        value.withUnsafeMutableBytes { write(frame, to: $0) }
        advance(past: frame)
        return true
    }

    /// Where the next frame's payload ends, and its header.
    private struct NextFrame {
        var header: FrameHeader
        var payloadEnd: Int
        var length: Int
    }

    private func nextFrame() -> NextFrame {
        let isFirst = offset == 0 && sequence == 0
        let headerLength = isFirst ? FrameHeader.firstLength : FrameHeader.continuationLength
        let total = message.bytes.count
        let end = Swift.min(total, offset + maxValueLength - headerLength)
        let start =
            isFirst
            ? MessageStart(kind: message.kind, totalLength: UInt32(total), checksum: checksum) : nil
        let header = FrameHeader(messageID: id, sequence: sequence, isLast: end == total, start: start)
        return NextFrame(header: header, payloadEnd: end, length: headerLength + end - offset)
    }

    private func write(_ frame: NextFrame, to destination: UnsafeMutableRawBufferPointer) {
        guard let base = destination.baseAddress else { return }
        frame.header.write(to: base)
        let payloadLength = frame.payloadEnd - offset
        guard payloadLength > 0 else { return }
        message.bytes.withUnsafeBytes { bytes in
            (base + frame.header.encodedLength).copyMemory(from: bytes.baseAddress! + offset, byteCount: payloadLength)
        }
    }

    private mutating func advance(past frame: NextFrame) {
        offset = frame.payloadEnd
        sequence &+= 1
        finished = frame.header.isLast
    }
}

/// The sending side of one link direction: frames messages for the link's MTU and numbers them.
public struct Chunker: Sendable {
    /// How this side's values cross the link: `.write` on a central, `.notification` on a peripheral.
    public let carrier: ValueCarrier
    /// The link's MTU; change it when the link reports a new one.
    public var mtu: MTU
    /// The identifier the next message gets.
    public private(set) var nextMessageID: MessageID

    /// A chunker for `carrier` at `mtu` whose first message gets `firstMessageID`.
    public init(carrier: ValueCarrier, mtu: MTU = .default, firstMessageID: MessageID = MessageID(0)) {
        self.carrier = carrier
        self.mtu = mtu
        self.nextMessageID = firstMessageID
    }

    /// The frames of `message`, under the next message identifier.
    public mutating func frames(for message: Message) -> MessageFrames {
        let frames = MessageFrames(message: message, id: nextMessageID, mtu: mtu, carrier: carrier)
        nextMessageID = nextMessageID.next
        return frames
    }
}
