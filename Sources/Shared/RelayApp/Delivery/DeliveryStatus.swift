import RelayCLI
import RelayEndpoint

/// What `status` says of protocol 2, the same on both programs: bytes sent and resent,
/// retransmission time-outs, duplicates received.
public struct DeliveryStatus: Equatable, Sendable {
    /// Stream bytes handed over, retransmissions included.
    public var sentBytes = 0
    /// Of those, bytes sent again.
    public var resentBytes = 0
    /// Retransmission time-outs.
    public var timeouts = 0
    /// Data frames received whose bytes were all held already.
    public var duplicateFrames = 0

    public init() {}

    /// From a sender's counts and its receivers' duplicates.
    public init(sender: TransferSenderCounts, duplicateFrames: Int) {
        sentBytes = sender.sentBytes
        resentBytes = sender.resentBytes
        timeouts = sender.timeouts
        self.duplicateFrames = duplicateFrames
    }

    /// The `delivery` object of the `status` event.
    public var json: JSONValue {
        .object([
            ("sentBytes", .integer(Int64(sentBytes))), ("resentBytes", .integer(Int64(resentBytes))),
            ("timeouts", .integer(Int64(timeouts))), ("duplicates", .integer(Int64(duplicateFrames))),
        ])
    }

    /// One line for the human `status`.
    public var line: String {
        "\(sentBytes) bytes sent (\(resentBytes) again, \(timeouts) time-outs), \(duplicateFrames) duplicate frames received"
    }
}
