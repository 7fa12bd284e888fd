/// The one-byte identifier a sender gives each message; it increments per message and wraps.
public struct MessageID: Sendable, Hashable, CustomStringConvertible {
    /// The identifier value.
    public var value: UInt8

    /// The identifier `value`.
    public init(_ value: UInt8) {
        self.value = value
    }

    /// The identifier of the following message; 255 wraps to 0.
    public var next: MessageID { MessageID(value &+ 1) }

    /// `#` followed by the decimal value, for example `#7`.
    public var description: String { "#\(value)" }
}
