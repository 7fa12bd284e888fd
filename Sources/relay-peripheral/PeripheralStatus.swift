import RelayApp
import RelayBlueZ
import RelayCLI
import RelayProtocol

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

    let adapter: AdapterReport
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

    init(session: PeripheralSession) {
        adapter = AdapterReport(adapter: session.adapterInfo, state: session.adapter)
        registered = session.application == .active
        advertising = session.isAdvertising
        name = session.configuration.name.text
        nextCounter = session.counter.value
        lastNotified = session.lastNotified?.value
        notifying = session.hasSubscribers
        sendingMTU = session.sendingMTU
        pendingSends = session.pendingCount
        messagesReceived = session.messagesReceived
        centrals = session.centrals.sorted { $0.key < $1.key }.map { address, central in
            Central(
                address: address, mtu: central.mtu, subscribed: central.subscribed, counters: central.inbound.counters,
                messages: central.inbound.messages, lastWritten: central.inbound.lastValue,
                receiving: central.inbound.progress.map { Receiving(received: $0.received, total: $0.total) })
        }
    }

    var fields: [(String, JSONValue)] {
        adapter.fields + [
            ("registered", .bool(registered)), ("advertising", .bool(advertising)), ("name", .string(name)),
            ("counter", .unsigned(nextCounter)), ("lastNotified", lastNotified.map { .unsigned($0) } ?? .null),
            ("notifying", .bool(notifying)), ("mtu", .integer(Int64(sendingMTU.value))),
            ("pending", .integer(Int64(pendingSends))), ("messages", .integer(Int64(messagesReceived))),
            (
                "centrals",
                .array(
                    centrals.map { central in
                        .object([
                            ("address", .string(central.address.description)),
                            ("mtu", central.mtu.map { .integer(Int64($0.value)) } ?? .null),
                            ("subscribed", .bool(central.subscribed)), ("counters", .integer(Int64(central.counters))),
                            ("messages", .integer(Int64(central.messages))),
                            ("lastWritten", central.lastWritten.map { .string(Hex.preview($0, limit: 64)) } ?? .null),
                            (
                                "receiving",
                                central.receiving.map { progress in
                                    .object([
                                        ("received", .integer(Int64(progress.received))),
                                        ("total", .integer(Int64(progress.total))),
                                    ])
                                } ?? .null
                            ),
                        ])
                    })
            ),
        ]
    }

    var humanDescription: String {
        var lines = [
            "adapter:     \(adapter.summary)",
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
                    + (central.lastWritten.map { "  last written \(Hex.preview($0, limit: 16))" } ?? "")
                    + (central.receiving.map { "  receiving a message: \($0.received) of \($0.total) bytes" } ?? ""))
        }
        return lines.joined(separator: "\n")
    }
}
