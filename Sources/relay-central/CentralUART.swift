import RelayApp
import RelayBlueZ
import RelayProtocol

/// A link to a Nordic UART Service device (`--nus`, `connect --nus`): the line being received
/// and the text waiting to be written.
struct CentralUART: Equatable, Sendable {
    /// One value of text for RX; the last one of a `send` completes it.
    struct Value: Equatable, Sendable {
        var bytes: [UInt8]
        var completes: SentText?
    }

    /// A `send` to a UART device, reported once its last value is written.
    struct SentText: Equatable, Sendable {
        var number: Int
        var length: Int
        var sha256: String
        var values: Int
        var mtu: MTU
    }

    /// The device (its lines are messages from it, also the one the link's end completes).
    var device: BluetoothAddress?
    /// Text the device notified or indicated on TX, made into lines.
    var lines = UARTLineAssembler()
    /// Values waiting for RX, in order.
    private(set) var queue: [Value] = []
    /// Lines received (numbers the `message` events).
    private(set) var received = 0

    /// Queues `values` for RX: the text of `send` number `sent`, which completes with the last.
    mutating func queue(_ values: [[UInt8]], completing sent: SentText) {
        for (index, bytes) in values.enumerated() {
            queue.append(Value(bytes: bytes, completes: index == values.count - 1 ? sent : nil))
        }
    }

    /// The next value for RX, if one waits.
    mutating func next() -> Value? {
        queue.isEmpty ? nil : queue.removeFirst()
    }

    /// A value of a text failed: the rest of that text goes (the text, unless `value` was its last).
    mutating func failed(_ value: Value) -> SentText? {
        if let sent = value.completes { return sent }
        guard let last = queue.firstIndex(where: { $0.completes != nil }) else { return nil }
        defer { queue.removeSubrange(...last) }
        return queue[last].completes
    }

    /// The link ended: the texts not yet written, which fail.
    mutating func linkEnded() -> [SentText] {
        defer { queue = [] }
        return queue.compactMap(\.completes)
    }

    /// The number of the next line received.
    mutating func numberLine() -> Int {
        received += 1
        return received
    }
}
