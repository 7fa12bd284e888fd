/// The first bytes of every version-2 message stream: what the message is. The message bytes
/// follow it in the same stream, so it is sent, acknowledged and resumed like them.
///
/// ```
/// 0     kind (MessageKind: 0x01 text, 0x02 binary)
/// 1     flags: reserved, 0
/// 2-5   message length in bytes, UInt32 LE
/// 6-9   CRC-32C of the message bytes, UInt32 LE
/// 10    name length n (0-255)
/// 11... n bytes of name, UTF-8 as the sender wrote it (receivers treat it as untrusted)
/// ```
public struct MessageHeader: Sendable, Hashable {
    /// Bytes of a header without a name.
    public static let fixedLength = 11
    /// The longest name, in bytes.
    public static let maximumNameLength = 255

    public var kind: MessageKind
    public var length: UInt32
    public var checksum: UInt32
    /// The name bytes (empty: no name).
    public var name: [UInt8]

    /// A header; a name longer than 255 bytes is cut to 255.
    public init(kind: MessageKind, length: UInt32, checksum: UInt32, name: [UInt8] = []) {
        self.kind = kind
        self.length = length
        self.checksum = checksum
        self.name = Array(name.prefix(Self.maximumNameLength))
    }

    /// The header of `message`.
    public init(of message: Message, name: [UInt8] = []) {
        precondition(message.length <= Int(UInt32.max), "a relay message is shorter than 4 GiB")
        self.init(kind: message.kind, length: UInt32(message.length), checksum: message.checksum, name: name)
    }

    /// `11 + name length`.
    public var encodedLength: Int { Self.fixedLength + name.count }

    /// The length of the whole stream: header and message.
    public var streamLength: Int { encodedLength + Int(length) }

    public func encode(into bytes: inout [UInt8]) {
        bytes.append(kind.rawValue)
        bytes.append(0)
        appendLittleEndian(length, to: &bytes)
        appendLittleEndian(checksum, to: &bytes)
        bytes.append(UInt8(name.count))
        bytes.append(contentsOf: name)
    }

    /// The header's bytes.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encodedLength)
        encode(into: &bytes)
        return bytes
    }

    /// How many bytes the header starting `prefix` takes, once `prefix` holds its name length
    /// byte (11 bytes); nil before.
    public static func length(ofHeaderStarting prefix: some Collection<UInt8>) -> Int? {
        guard prefix.count >= fixedLength else { return nil }
        return fixedLength + Int(prefix[prefix.index(prefix.startIndex, offsetBy: fixedLength - 1)])
    }

    /// Parses a header from the front of `bytes` (bytes after it are ignored).
    public init(parsing bytes: some Collection<UInt8>) throws(MessageHeaderError) {
        var reader = WireReader(bytes)
        guard reader.remaining >= Self.fixedLength else {
            throw .truncated(length: reader.remaining, required: Self.fixedLength)
        }
        let rawKind = reader.uint8()
        guard let kind = MessageKind(rawValue: rawKind) else { throw .unknownKind(rawKind) }
        let flags = reader.uint8()
        guard flags == 0 else { throw .reservedFlags(flags) }
        let length = reader.uint32()
        let checksum = reader.uint32()
        let nameLength = Int(reader.uint8())
        guard reader.remaining >= nameLength else {
            throw .truncated(length: bytes.count, required: Self.fixedLength + nameLength)
        }
        self.init(kind: kind, length: length, checksum: checksum, name: reader.take(nameLength))
    }
}

/// Why the first bytes of a message stream are not a valid `MessageHeader`.
public enum MessageHeaderError: Error, Sendable, Hashable, CustomStringConvertible {
    case truncated(length: Int, required: Int)
    case unknownKind(UInt8)
    case reservedFlags(UInt8)

    public var description: String {
        switch self {
        case .truncated(let length, let required): "truncated message header: \(length) bytes, needs \(required)"
        case .unknownKind(let kind): "unknown message kind 0x\(hexByte(kind))"
        case .reservedFlags(let flags): "message header with reserved flags set (0x\(hexByte(flags)))"
        }
    }
}
