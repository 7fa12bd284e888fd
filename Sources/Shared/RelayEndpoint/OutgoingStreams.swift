import RelayProtocol

/// The messages a version-2 sender is sending, by number: each one's stream (its
/// `MessageHeader`, then its bytes), read by range for data frames, and what the events say of it.
public struct OutgoingStreams: Sendable {
    /// One message (a file's bytes are read from it by range, not held).
    public struct Entry: Sendable {
        public let header: MessageHeader
        public let message: Message
        /// SHA-256 of the message bytes, in hex.
        public let sha256: String
        private let headerBytes: [UInt8]

        init(_ message: Message) {
            self.message = message
            header = MessageHeader(of: message, name: message.name)
            headerBytes = header.encoded
            sha256 = message.sha256.hex
        }

        /// Stream bytes `range` (header and message bytes).
        public func bytes(_ range: Range<Int>) -> [UInt8] {
            let split = headerBytes.count
            var bytes: [UInt8] = []
            bytes.reserveCapacity(range.count)
            if range.lowerBound < split { bytes += headerBytes[range.lowerBound..<min(split, range.upperBound)] }
            if range.upperBound > split {
                bytes += message.content((max(split, range.lowerBound) - split)..<(range.upperBound - split))
            }
            return bytes
        }
    }

    private var entries: [Int: Entry] = [:]

    public init() {}

    /// How many messages are held.
    public var count: Int { entries.count }

    /// Holds `message` (its header carries the message's name, if any) as `number`; returns its entry.
    @discardableResult
    public mutating func add(_ message: Message, number: Int) -> Entry {
        let entry = Entry(message)
        entries[number] = entry
        return entry
    }

    public subscript(number: Int) -> Entry? { entries[number] }

    /// Lets go of `number`'s bytes.
    public mutating func remove(_ number: Int) {
        entries[number] = nil
    }
}
