/// Rebuilds messages from frames: an incremental state machine, one per link direction.
///
/// Feed every received value to `receive(_:)` in arrival order and act on the returned events.
/// Rules:
/// - A first chunk starts a message. Its declared length is checked against `maxMessageLength`
///   before anything is allocated.
/// - Continuation chunks must belong to the message in progress and carry the next sequence
///   number (mod 65536); the bytes may never exceed the declared length.
/// - The last chunk completes the message, which is delivered only if its length and CRC-32C
///   match the first chunk's declaration.
/// - Every error drops the partial message in progress (reported with the error). The remaining
///   chunks of a dropped message are ignored silently, so one broken message costs one error,
///   and the next message goes through.
/// - A first chunk while a message is incomplete reports `interruptedByNewMessage`, drops the old
///   message and starts the new one.
public struct Reassembler: Sendable {
    /// The largest message accepted, in bytes.
    public let maxMessageLength: Int

    /// The message in progress (its bytes are in `buffer`).
    private var current: MessageStartState?
    /// A dropped message whose remaining chunks are ignored.
    private var discarding: MessageID?
    /// The bytes received so far of the message in progress.
    private var buffer: [UInt8] = []

    private struct MessageStartState: Sendable {
        var id: MessageID
        var kind: MessageKind
        var declaredLength: Int
        var declaredChecksum: UInt32
        var nextSequence: UInt16
        var checksum: CRC32C
    }

    /// A reassembler accepting messages of up to `maxMessageLength` bytes (default 1 MiB).
    public init(maxMessageLength: Int = 1 << 20) {
        precondition(maxMessageLength >= 0, "maxMessageLength must not be negative")
        self.maxMessageLength = maxMessageLength
    }

    /// Bytes of memory held for the message in progress: at most about twice its bytes received,
    /// whatever length its first chunk declared.
    public var heldMemory: Int { buffer.capacity }

    /// How far the message in progress has come; nil when no message is in progress.
    public var progress: ReassemblyProgress? {
        guard let current else { return nil }
        return ReassemblyProgress(
            id: current.id, kind: current.kind, received: buffer.count, total: current.declaredLength)
    }

    /// Handles one received characteristic value: a 4-byte value is reported as `.counter`
    /// (and leaves a message in progress untouched), anything else is handled as a frame.
    @inlinable
    public mutating func receive(_ value: some Collection<UInt8>) -> [ReassemblyEvent] {
        if let events = value.withContiguousStorageIfAvailable({ receive(bytes: UnsafeRawBufferPointer($0)) }) {
            return events
        }
        return Array(value).withUnsafeBytes { receive(bytes: $0) }
    }

    /// Handles one received characteristic value held in `bytes` (see `receive(_:)`).
    public mutating func receive(bytes value: UnsafeRawBufferPointer) -> [ReassemblyEvent] {
        if value.count == Counter.encodedLength {
            return [.counter(Counter(loadLittleEndianUInt32(value, at: 0)))]
        }
        return receive(frameBytes: value)
    }

    /// Handles a parsed frame.
    public mutating func receive(_ frame: Frame) -> [ReassemblyEvent] {
        frame.encoded.withUnsafeBytes { receive(frameBytes: $0) }
    }

    /// Forgets the message in progress, for example when the link disconnects.
    /// Returns the partial message that was dropped, if any.
    public mutating func reset() -> DroppedPartial? {
        discarding = nil
        return dropCurrent()
    }

    private mutating func receive(frameBytes value: UnsafeRawBufferPointer) -> [ReassemblyEvent] {
        let header: FrameHeader
        do {
            header = try FrameHeader.parse(value)
        } catch {
            // A first chunk refused (an unknown kind, say) names its message: its continuation
            // chunks are ignored silently, as those of any refused message (one error a message).
            let refused =
                value.count >= 3 && value[0] == FrameHeader.markerByte && value[1] & FrameFlags.first.rawValue != 0
                ? MessageID(value[2]) : nil
            return [fail(.invalidFrame(error), discarding: refused)]
        }
        let payload = UnsafeRawBufferPointer(rebasing: value[header.encodedLength...])
        if let start = header.start {
            return receiveFirst(header, start, payload)
        }
        return receiveContinuation(header, payload)
    }

    private mutating func receiveFirst(
        _ header: FrameHeader, _ start: MessageStart, _ payload: UnsafeRawBufferPointer
    ) -> [ReassemblyEvent] {
        var events: [ReassemblyEvent] = []
        if current != nil {
            events.append(fail(.interruptedByNewMessage(newID: header.messageID), discarding: nil))
        }
        discarding = nil
        let id = header.messageID
        guard start.totalLength <= maxMessageLength else {
            events.append(
                fail(.messageTooLarge(id, declared: start.totalLength, limit: maxMessageLength), discarding: id))
            return events
        }
        let declared = Int(start.totalLength)
        guard payload.count <= declared else {
            events.append(fail(.lengthMismatch(id, declared: declared, received: payload.count), discarding: id))
            return events
        }
        // The buffer grows as chunks come: a declared length reserves nothing.
        buffer = []
        buffer.append(contentsOf: payload.bindMemory(to: UInt8.self))
        var checksum = CRC32C()
        checksum.update(payload)
        current = MessageStartState(
            id: id, kind: start.kind, declaredLength: declared, declaredChecksum: start.checksum,
            nextSequence: 1, checksum: checksum)
        if header.isLast {
            events.append(complete())
        }
        return events
    }

    private mutating func receiveContinuation(
        _ header: FrameHeader, _ payload: UnsafeRawBufferPointer
    ) -> [ReassemblyEvent] {
        let id = header.messageID
        guard let state = current, state.id == id else {
            if current == nil, discarding == id {
                if header.isLast { discarding = nil }
                return []
            }
            // Ignore the rest of the dropped message if there was one, else the rest of the unknown one.
            return [fail(.unknownMessage(id), discarding: current == nil ? id : nil)]
        }
        guard header.sequence == state.nextSequence else {
            let error: ReassemblyError =
                header.sequence == state.nextSequence &- 1
                ? .duplicateChunk(id, sequence: header.sequence)
                : .sequenceGap(id, expected: state.nextSequence, got: header.sequence)
            return [fail(error, discarding: id)]
        }
        let received = buffer.count + payload.count
        guard received <= state.declaredLength else {
            return [fail(.lengthMismatch(id, declared: state.declaredLength, received: received), discarding: id)]
        }
        buffer.append(contentsOf: payload.bindMemory(to: UInt8.self))
        current!.checksum.update(payload)
        current!.nextSequence &+= 1
        return header.isLast ? [complete()] : []
    }

    /// Checks and delivers the message in progress after its last chunk.
    private mutating func complete() -> ReassemblyEvent {
        guard let state = current else { preconditionFailure("complete() without a message in progress") }
        guard buffer.count == state.declaredLength else {
            return fail(
                .lengthMismatch(state.id, declared: state.declaredLength, received: buffer.count), discarding: nil)
        }
        let computed = state.checksum.value
        guard computed == state.declaredChecksum else {
            return fail(
                .checksumMismatch(state.id, declared: state.declaredChecksum, computed: computed), discarding: nil)
        }
        let bytes = buffer
        buffer = []
        current = nil
        return .message(ReceivedMessage(id: state.id, message: Message(kind: state.kind, bytes: bytes)))
    }

    /// Reports `error`, drops the message in progress and ignores the remaining chunks of
    /// `discardedID` (or of the dropped message).
    private mutating func fail(_ error: ReassemblyError, discarding discardedID: MessageID?) -> ReassemblyEvent {
        let dropped = dropCurrent()
        discarding = discardedID ?? dropped?.id
        return .error(error, dropped: dropped)
    }

    private mutating func dropCurrent() -> DroppedPartial? {
        guard let state = current else { return nil }
        let dropped = DroppedPartial(
            id: state.id, kind: state.kind, received: buffer.count, total: state.declaredLength)
        current = nil
        buffer = []
        return dropped
    }
}
