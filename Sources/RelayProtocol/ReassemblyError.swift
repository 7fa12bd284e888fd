/// A protocol error found by a `Reassembler`. The partial message in progress, if any, is dropped.
public enum ReassemblyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The value is not a valid frame.
    case invalidFrame(FrameError)
    /// A chunk of message `id` skipped ahead: sequence number `got` where `expected` was due.
    case sequenceGap(MessageID, expected: UInt16, got: UInt16)
    /// A chunk of message `id` repeated the previous sequence number `sequence`.
    case duplicateChunk(MessageID, sequence: UInt16)
    /// A continuation chunk of a message whose first chunk was not received (or that is not the one in progress).
    case unknownMessage(MessageID)
    /// The first chunk of message `newID` arrived while another message was incomplete.
    /// The incomplete one is dropped and `newID` is received.
    case interruptedByNewMessage(newID: MessageID)
    /// Message `id` carried more or fewer bytes than its first chunk declared.
    case lengthMismatch(MessageID, declared: Int, received: Int)
    /// The CRC-32C of message `id` is not the one its first chunk declared.
    case checksumMismatch(MessageID, declared: UInt32, computed: UInt32)
    /// Message `id` declared more bytes than the reassembler accepts; nothing was allocated.
    case messageTooLarge(MessageID, declared: UInt32, limit: Int)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .invalidFrame(let error):
            "\(error)"
        case .sequenceGap(let id, let expected, let got):
            "message \(id): chunk \(got) where chunk \(expected) was due"
        case .duplicateChunk(let id, let sequence):
            "message \(id): duplicate chunk \(sequence)"
        case .unknownMessage(let id):
            "chunk of unknown message \(id)"
        case .interruptedByNewMessage(let newID):
            "message \(newID) started before the previous message was complete"
        case .lengthMismatch(let id, let declared, let received):
            "message \(id): declared \(declared) bytes, received \(received)"
        case .checksumMismatch(let id, let declared, let computed):
            "message \(id): CRC-32C mismatch (declared \(hex32(declared)), computed \(hex32(computed)))"
        case .messageTooLarge(let id, let declared, let limit):
            "message \(id): \(declared) bytes exceeds the limit of \(limit)"
        }
    }
}

/// A partial message a `Reassembler` dropped.
public struct DroppedPartial: Sendable, Hashable, CustomStringConvertible {
    /// The dropped message's identifier.
    public var id: MessageID
    /// The dropped message's kind.
    public var kind: MessageKind
    /// Bytes received before it was dropped.
    public var received: Int
    /// Bytes its first chunk declared.
    public var total: Int

    /// A dropped partial message.
    public init(id: MessageID, kind: MessageKind, received: Int, total: Int) {
        self.id = id
        self.kind = kind
        self.received = received
        self.total = total
    }

    /// For example `message #3 dropped after 120 of 1000 bytes`.
    public var description: String { "message \(id) dropped after \(received) of \(total) bytes" }
}

/// How far the message in progress has come.
public struct ReassemblyProgress: Sendable, Hashable {
    /// The message's identifier.
    public var id: MessageID
    /// The message's kind.
    public var kind: MessageKind
    /// Bytes received so far.
    public var received: Int
    /// Bytes declared by the first chunk.
    public var total: Int

    /// Progress of message `id`.
    public init(id: MessageID, kind: MessageKind, received: Int, total: Int) {
        self.id = id
        self.kind = kind
        self.received = received
        self.total = total
    }
}

/// What a received value produced.
public enum ReassemblyEvent: Sendable, Hashable {
    /// A 4-byte value: a counter (only from `Reassembler.receive(_:)`, which takes raw values).
    case counter(Counter)
    /// A message completed, checked against its declared length and CRC-32C.
    case message(ReceivedMessage)
    /// A protocol error; `dropped` is the partial message it cost, if one was in progress.
    case error(ReassemblyError, dropped: DroppedPartial?)
}

func hex32(_ value: UInt32) -> String { Hex.fixed(UInt64(value), width: 8) }
