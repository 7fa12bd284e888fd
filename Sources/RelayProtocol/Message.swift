/// A message of any size: a kind, its bytes and, for a file, its name.
public struct Message: Sendable, Hashable {
    /// What the bytes are.
    public var kind: MessageKind
    /// The message content.
    public var bytes: [UInt8]
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
