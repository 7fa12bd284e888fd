/// Message bytes that are not held but read by range as they are sent (`send-file`: the file,
/// read as the window advances). The owner does the reading; the protocol core only asks.
public protocol StoredBytes: AnyObject, Sendable {
    /// How many bytes there are.
    var count: Int { get }
    /// CRC-32C of all of them.
    var checksum: UInt32 { get }
    /// SHA-256 of all of them.
    var sha256: SHA256.Digest { get }
    /// Bytes `range` (within `0..<count`), as they were when `checksum` was computed; where they
    /// can no longer be read so, zero bytes (the receiver's CRC-32C check then refuses the message).
    func read(_ range: Range<Int>) -> [UInt8]
}

/// A message of any size: a kind, its bytes and, for a file, its name.
public struct Message: Sendable, Hashable {
    /// What the bytes are.
    public var kind: MessageKind
    /// The message content (empty when the content is `stored`).
    public var bytes: [UInt8]
    /// The content when it is not held (a file being sent): read by range as it goes.
    public var stored: (any StoredBytes)?
    /// The file name it carries (`send-file`: the file's base name, UTF-8, at most 255 bytes),
    /// empty for none. Only protocol 2 carries it; a received name is untrusted
    /// (`ReceivedFileName` makes it safe).
    public var name: [UInt8]

    /// A message of `kind` carrying `bytes` and `name` (cut to 255 bytes).
    public init(kind: MessageKind, bytes: [UInt8], name: [UInt8] = []) {
        self.kind = kind
        self.bytes = bytes
        self.name = Array(name.prefix(MessageHeader.maximumNameLength))
    }

    /// A message of `kind` whose content is `stored` (not held), under `name`.
    public init(kind: MessageKind, stored: any StoredBytes, name: [UInt8] = []) {
        self.init(kind: kind, bytes: [], name: name)
        self.stored = stored
    }

    /// The content's length in bytes.
    public var length: Int { stored?.count ?? bytes.count }

    /// CRC-32C of the content.
    public var checksum: UInt32 { stored?.checksum ?? bytes.withUnsafeBytes { CRC32C.checksum($0) } }

    /// SHA-256 of the content.
    public var sha256: SHA256.Digest { stored?.sha256 ?? SHA256.hash(bytes) }

    /// Content bytes `range`.
    public func content(_ range: Range<Int>) -> [UInt8] {
        if let stored { return stored.read(range) }
        return Array(bytes[range])
    }

    /// The message with its content held (read whole from `stored`): for version 1, whose
    /// frames are cut from bytes in memory.
    public var held: Message {
        guard let stored else { return self }
        return Message(kind: kind, bytes: stored.read(0..<stored.count), name: name)
    }

    public static func == (lhs: Message, rhs: Message) -> Bool {
        lhs.kind == rhs.kind && lhs.bytes == rhs.bytes && lhs.name == rhs.name
            && lhs.stored.map(ObjectIdentifier.init) == rhs.stored.map(ObjectIdentifier.init)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(bytes)
        hasher.combine(name)
        hasher.combine(stored.map(ObjectIdentifier.init))
    }

    /// A text message carrying the UTF-8 encoding of `text`.
    public init(text: String) {
        self.init(kind: .text, bytes: Array(text.utf8))
    }

    /// A binary message carrying `bytes`.
    public init(binary bytes: [UInt8]) {
        self.init(kind: .binary, bytes: bytes)
    }

    /// The text of a `.text` message; nil for a binary message or bytes that are not valid UTF-8.
    public var text: String? {
        guard kind == .text else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}

/// A message delivered by a `Reassembler`, with the identifier the sender gave it.
public struct ReceivedMessage: Sendable, Hashable {
    /// The sender's identifier for the message.
    public var id: MessageID
    /// The message.
    public var message: Message

    /// A received `message` that carried `id`.
    public init(id: MessageID, message: Message) {
        self.id = id
        self.message = message
    }
}
