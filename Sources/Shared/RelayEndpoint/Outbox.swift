import RelayProtocol

/// A message sent: what `delivered`, `unconfirmed` and `failed` name.
public struct SentMessageSummary: Equatable, Sendable {
    /// The sender's own number for the message (from 1, per program).
    public let id: Int
    public let length: Int
    public let sha256: String

    public init(id: Int, length: Int, sha256: String) {
        self.id = id
        self.length = length
        self.sha256 = sha256
    }
}

/// A message as it was queued, for the `sent` report.
public struct OutgoingMessage: Equatable, Sendable {
    /// The sender's own number for the message (from 1, per program): `id` in the events.
    public let number: Int
    /// The frames' message id (version 1) or transfer id (version 2), as a number.
    public let id: Int
    public let kind: MessageKind
    public let length: Int
    /// SHA-256 of the message bytes, in hex.
    public let sha256: String
    /// How many frames carry it.
    public let frames: Int
    /// The MTU it was chunked for.
    public let mtu: MTU
    /// The protocol version of its frames: 1 (no acknowledgement) or 2.
    public let protocolVersion: Int

    public init(
        number: Int, id: Int, kind: MessageKind, length: Int, sha256: String, frames: Int, mtu: MTU,
        protocolVersion: Int = 1
    ) {
        self.number = number
        self.id = id
        self.kind = kind
        self.length = length
        self.sha256 = sha256
        self.frames = frames
        self.mtu = mtu
        self.protocolVersion = protocolVersion
    }

    /// What `delivered`, `unconfirmed` and `failed` say of it.
    public var summary: SentMessageSummary { SentMessageSummary(id: number, length: length, sha256: sha256) }
}

/// The queue of values one sender hands to its link: counters and framed messages, in the
/// order they were asked for, each with the sender's `Tag` (what to tell when it is done).
/// Messages are framed lazily, so a queued 1 MiB message costs its bytes once.
public struct Outbox<Tag: Sendable>: Sendable {
    /// What one value completes, if anything.
    public enum Completion: Sendable {
        case counter(Counter, Tag)
        case message(OutgoingMessage, Tag)
    }

    /// The next value for the link.
    public struct Value: Sendable {
        public let bytes: [UInt8]
        /// The counter this value carries, if it is one.
        public let counter: Counter?
        /// Set on a counter and on a message's last frame: what is done once this value is
        /// handed over.
        public let completion: Completion?
    }

    private enum Item: Sendable {
        case counter(Counter, Tag)
        case message(MessageFrames, OutgoingMessage, Tag, taken: Int)
    }

    private var items: [Item] = []
    private var head = 0

    public init() {}

    /// Whether nothing waits.
    public var isEmpty: Bool { head == items.count }

    /// Queued counters and messages (a message partly taken counts as one).
    public var count: Int { items.count - head }

    /// Frames taken so far of the message at the front, and its total; nil when a counter (or
    /// nothing) is at the front.
    public var frontMessageProgress: (message: OutgoingMessage, taken: Int)? {
        guard head < items.count, case .message(_, let message, _, let taken) = items[head] else { return nil }
        return (message, taken)
    }

    public mutating func append(counter: Counter, tag: Tag) {
        items.append(.counter(counter, tag))
    }

    /// Queues `message` framed by `chunker` (which gives its frames their id) as the sender's
    /// message `number`; returns its summary. Version-1 frames are cut from bytes in memory: a
    /// `stored` content (a file) is read whole here.
    @discardableResult
    public mutating func append(_ message: Message, number: Int, chunker: inout Chunker, tag: Tag) -> OutgoingMessage {
        let message = message.held
        let frames = chunker.frames(for: message)
        let summary = OutgoingMessage(
            number: number, id: Int(frames.id.value), kind: message.kind, length: message.bytes.count,
            sha256: SHA256.hash(message.bytes).hex, frames: frames.count, mtu: frames.mtu)
        items.append(.message(frames, summary, tag, taken: 0))
        return summary
    }

    /// Takes the next value, or nil when empty.
    public mutating func next() -> Value? {
        while head < items.count {
            switch items[head] {
            case .counter(let counter, let tag):
                popFront()
                return Value(bytes: counter.encoded, counter: counter, completion: .counter(counter, tag))
            case .message(var frames, let summary, let tag, let taken):
                guard let frame = frames.next() else {
                    popFront()
                    continue
                }
                if frames.underestimatedCount == 0 {
                    popFront()
                    return Value(bytes: frame, counter: nil, completion: .message(summary, tag))
                }
                items[head] = .message(frames, summary, tag, taken: taken + 1)
                return Value(bytes: frame, counter: nil, completion: nil)
            }
        }
        return nil
    }

    /// Drops the message at the front (its remaining frames); returns it and its tag.
    public mutating func dropFrontMessage() -> (OutgoingMessage, Tag)? {
        guard head < items.count, case .message(_, let summary, let tag, _) = items[head] else { return nil }
        popFront()
        return (summary, tag)
    }

    /// Empties the queue; returns what was dropped (started or not).
    public mutating func removeAll() -> [Completion] {
        let dropped: [Completion] = items[head...].map { item in
            switch item {
            case .counter(let counter, let tag): return .counter(counter, tag)
            case .message(_, let summary, let tag, _): return .message(summary, tag)
            }
        }
        items.removeAll()
        head = 0
        return dropped
    }

    private mutating func popFront() {
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
    }
}
