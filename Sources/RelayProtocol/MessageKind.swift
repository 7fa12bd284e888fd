/// What a message's bytes are; carried on the first chunk of every message.
public enum MessageKind: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// UTF-8 text.
    case text = 0x01
    /// Arbitrary bytes.
    case binary = 0x02

    /// `text` or `binary`.
    public var description: String {
        switch self {
        case .text: "text"
        case .binary: "binary"
        }
    }
}
