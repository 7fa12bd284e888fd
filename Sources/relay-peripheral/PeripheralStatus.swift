import RelayProtocol
import Shared

/// What `status` shows: the adapter, the registrations, the counter and every central.
struct PeripheralStatus: Equatable, Sendable {
    struct Central: Equatable, Sendable {
        let address: BluetoothAddress
        let mtu: MTU?
        let subscribed: Bool
        let counters: Int
        let messages: Int
        let lastWritten: [UInt8]?
        /// The message this central is sending, while incomplete.
        let receiving: Receiving?
    }

    /// Bytes received so far of an incomplete message, and its declared total.
    struct Receiving: Equatable, Sendable {
        let received: Int
        let total: Int
    }

    let adapter: String?
    let state: AdapterStatus?
    let registered: Bool
    let advertising: Bool
    let name: String
    let nextCounter: UInt32
    let lastNotified: UInt32?
    let notifying: Bool
    let sendingMTU: MTU
    let pendingSends: Int
    let messagesReceived: Int
    let centrals: [Central]

    init(session: PeripheralSession, adapter: String?) {
        self.adapter = adapter
        state = session.adapter
        registered = session.application == .active
        advertising = session.isAdvertising
        name = session.configuration.name.text
        nextCounter = session.counter.value
        lastNotified = session.lastNotified?.value
        notifying = session.hasSubscribers
        sendingMTU = session.sendingMTU
        pendingSends = session.pendingCount
        messagesReceived = session.messagesReceived
        centrals = session.centrals.values.sorted { $0.address < $1.address }.map {
            Central(address: $0.address, mtu: $0.mtu, subscribed: $0.subscribed, counters: $0.countersReceived,
                    messages: $0.messagesReceived, lastWritten: $0.lastWritten,
                    receiving: $0.reassembler.progress.map { Receiving(received: $0.received, total: $0.total) })
        }
    }

    static func hex(_ bytes: [UInt8], limit: Int = 16) -> String {
        let digits = Array("0123456789abcdef")
        var text = bytes.prefix(limit).map { String([digits[Int($0 >> 4)], digits[Int($0 & 15)]]) }.joined()
        if bytes.count > limit { text += "…(\(bytes.count) bytes)" }
        return text
    }

    var fields: [(String, JSONValue)] {
        [
            ("adapter", adapter.map { .string($0) } ?? .null), ("state", state.map { .string($0.name) } ?? .null),
            ("registered", .bool(registered)), ("advertising", .bool(advertising)), ("name", .string(name)),
            ("counter", .unsigned(nextCounter)), ("lastNotified", lastNotified.map { .unsigned($0) } ?? .null),
            ("notifying", .bool(notifying)), ("mtu", .integer(Int64(sendingMTU.value))),
            ("pending", .integer(Int64(pendingSends))), ("messages", .integer(Int64(messagesReceived))),
            ("centrals", .array(centrals.map { central in
                .object([
                    ("address", .string(central.address.description)),
                    ("mtu", central.mtu.map { .integer(Int64($0.value)) } ?? .null),
                    ("subscribed", .bool(central.subscribed)), ("counters", .integer(Int64(central.counters))),
                    ("messages", .integer(Int64(central.messages))),
                    ("lastWritten", central.lastWritten.map { .string(Self.hex($0, limit: 64)) } ?? .null),
                    ("receiving", central.receiving.map { progress in
                        .object([("received", .integer(Int64(progress.received))), ("total", .integer(Int64(progress.total)))])
                    } ?? .null),
                ])
            })),
        ]
    }

    var humanDescription: String {
        var lines = [
            "adapter:     \(adapter ?? "none") (\(state?.phrase ?? "waiting"))",
            "service:     \(registered ? "registered" : "not registered")",
            "advertising: \(advertising ? "yes, as '\(name)'" : "no")",
            "counter:     next \(nextCounter), last notified \(lastNotified.map(String.init) ?? "none")",
            "sending:     \(notifying ? "subscribed" : "nobody subscribed"), MTU \(sendingMTU), \(pendingSends) queued",
            "received:    \(messagesReceived) message\(messagesReceived == 1 ? "" : "s")",
            "centrals:    \(centrals.isEmpty ? "none" : String(centrals.count))",
        ]
        for central in centrals {
            lines.append(
                "  \(central.address)  MTU \(central.mtu.map(String.init) ?? "unknown")  "
                    + (central.subscribed ? "subscribed" : "not subscribed")
                    + "  \(central.counters) counters, \(central.messages) messages"
                    + (central.lastWritten.map { "  last written \(Self.hex($0))" } ?? "")
                    + (central.receiving.map { "  receiving a message: \($0.received) of \($0.total) bytes" } ?? ""))
        }
        return lines.joined(separator: "\n")
    }
}
