import RelayApp
import RelayBlueZ
import RelayCLI
import RelayProtocol

/// What `status` shows: the adapter, the registrations, the counter and every central.
struct PeripheralStatus: Equatable, Sendable {
    struct Central: Equatable, Sendable {
        /// Its number in the list (from 1): what `status CENTRAL` takes.
        let number: Int
        let address: BluetoothAddress
        let mtu: MTU?
        let subscribed: Bool
        let counters: Int
        let messages: Int
        let lastWritten: [UInt8]?
        /// The central's session number when it speaks protocol 2.
        let session: Int?
        /// The message this central is sending, while incomplete.
        let receiving: Receiving?
        /// How its session's messages travel (nil without a session).
        var lane: MessageLane? = nil
    }

    /// Bytes received so far of an incomplete message, and its declared total.
    struct Receiving: Equatable, Sendable {
        let received: Int
        /// nil until the message's header came (protocol 2).
        let total: Int?
    }

    let adapter: AdapterReport
    let registered: Bool
    let advertising: Bool
    let name: String
    /// How often the advertisement goes on the air (as asked of bluetoothd).
    let advertisingInterval: AdvertisingInterval
    /// The adapter refused to advertise while this many centrals were connected (nil: it did not).
    let advertisingHeld: Int?
    let nextCounter: UInt32
    let lastNotified: UInt32?
    let notifying: Bool
    let sendingMTU: MTU
    let pendingSends: Int
    let messagesReceived: Int
    let centrals: [Central]
    /// `status CENTRAL`: the one central shown (`centrals` holds it alone).
    let only: BluetoothAddress?
    let delivery: DeliveryStatus
    /// The UART service: nil with `--no-nus`.
    let uart: UART?
    /// `--allow`: the listed centrals and how many values others wrote (nil: every central is taken).
    let allow: Allow?
    /// `--secure`: bonds made and attempts failed since the start (nil: open mode).
    let secure: Secure?

    /// `--secure` as `status` shows it.
    struct Secure: Equatable, Sendable {
        let paired: Int
        let failed: Int
        let pairing: [BluetoothAddress]
    }

    /// `--allow` as `status` shows it.
    struct Allow: Equatable, Sendable {
        let centrals: [BluetoothAddress]
        let dropped: Int
    }

    /// Phone UART apps (Nordic UART Service), apart from the relay centrals.
    struct UART: Equatable, Sendable {
        let subscribed: Bool
        let centrals: [BluetoothAddress]
        let lines: Int
        let queued: Int
    }

    /// Everything; with `only`, that central alone in `centrals` (shown in detail).
    init(session: PeripheralSession, only: BluetoothAddress? = nil) {
        self.only = only
        adapter = AdapterReport(adapter: session.adapterInfo, state: session.adapter)
        registered = session.registrations.application == .active
        advertising = session.isAdvertising
        name = session.settings.name.text
        advertisingInterval = session.settings.advertisingInterval
        advertisingHeld = session.registrations.heldByCentrals
        nextCounter = session.sending.nextCounter.value
        lastNotified = session.sending.lastNotified?.value
        notifying = session.hasSubscribers
        sendingMTU = session.sendingMTU
        pendingSends = session.pendingCount
        messagesReceived = session.messagesReceived
        delivery = DeliveryStatus(
            sender: session.delivery.outgoing.sender.counts,
            duplicateFrames: session.delivery.sessions.values.reduce(0) { $0 + $1.receiver.counts.duplicateFrames })
        uart = session.settings.uart.map { _ in
            UART(
                subscribed: session.uart.subscribed, centrals: session.uart.centrals.sorted(),
                lines: session.uart.received, queued: session.uart.queue.count)
        }
        allow = session.settings.allowedCentrals.map {
            Allow(centrals: $0.sorted(), dropped: session.refusals.notAllowedValues)
        }
        secure =
            session.settings.secure
            ? Secure(
                paired: session.pairing.paired, failed: session.pairing.failed,
                pairing: session.pairing.shown.keys.sorted()) : nil
        let listed = session.listedCentrals
        centrals = listed.enumerated().compactMap { index, address in
            guard only == nil || only == address, let central = session.centrals[address] else { return nil }
            return Central(
                number: index + 1, address: address, mtu: central.mtu, subscribed: central.subscribed,
                counters: central.inbound.counters,
                messages: central.inbound.messages, lastWritten: central.inbound.lastValue,
                session: session.sessionNumber(at: address).map { Int($0.value) },
                receiving: central.inbound.progress.map { Receiving(received: $0.received, total: $0.total) }
                    ?? session.sessionNumber(at: address).flatMap { session.delivery.sessions[$0]?.receiver.inProgress }
                    .map { Receiving(received: $0.received, total: $0.total) },
                lane: session.sessionNumber(at: address).flatMap { session.delivery.sessions[$0] }.map {
                    $0.lane == nil ? .gatt : .l2cap
                })
        }
    }

    var fields: [(String, JSONValue)] {
        adapter.fields + [
            ("registered", .bool(registered)), ("advertising", .bool(advertising)), ("name", .string(name)),
            ("advertisingInterval", .integer(Int64(advertisingInterval.milliseconds))),
            ("advertisingHeld", advertisingHeld.map { .integer(Int64($0)) } ?? .null),
            ("counter", .unsigned(nextCounter)), ("lastNotified", lastNotified.map { .unsigned($0) } ?? .null),
            ("notifying", .bool(notifying)), ("mtu", .integer(Int64(sendingMTU.value))),
            ("pending", .integer(Int64(pendingSends))), ("messages", .integer(Int64(messagesReceived))),
            ("delivery", delivery.json),
            (
                "nus",
                uart.map { uart in
                    .object([
                        ("subscribed", .bool(uart.subscribed)),
                        ("centrals", .array(uart.centrals.map { .string($0.description) })),
                        ("lines", .integer(Int64(uart.lines))), ("queued", .integer(Int64(uart.queued))),
                    ])
                } ?? .null
            ),
            (
                "allow",
                allow.map { allow in
                    .object([
                        ("centrals", .array(allow.centrals.map { .string($0.description) })),
                        ("dropped", .integer(Int64(allow.dropped))),
                    ])
                } ?? .null
            ),
            (
                "secure",
                secure.map { secure in
                    .object([
                        ("paired", .integer(Int64(secure.paired))), ("failed", .integer(Int64(secure.failed))),
                        ("pairing", .array(secure.pairing.map { .string($0.description) })),
                    ])
                } ?? .null
            ),
            (
                "centrals",
                .array(
                    centrals.map { central in
                        .object([
                            ("number", .integer(Int64(central.number))),
                            ("address", .string(central.address.description)),
                            ("mtu", central.mtu.map { .integer(Int64($0.value)) } ?? .null),
                            ("subscribed", .bool(central.subscribed)), ("counters", .integer(Int64(central.counters))),
                            ("protocol", .integer(central.session == nil ? 1 : 2)),
                            ("session", central.session.map { .integer(Int64($0)) } ?? .null),
                            ("lane", central.lane.map { .string($0.rawValue) } ?? .null),
                            ("messages", .integer(Int64(central.messages))),
                            ("lastWritten", central.lastWritten.map { .string(Hex.preview($0, limit: 64)) } ?? .null),
                            (
                                "receiving",
                                central.receiving.map { progress in
                                    .object([
                                        ("received", .integer(Int64(progress.received))),
                                        ("total", progress.total.map { .integer(Int64($0)) } ?? .null),
                                    ])
                                } ?? .null
                            ),
                        ])
                    })
            ),
        ]
    }

    private var advertisingLine: String {
        if advertising { return "yes, as '\(name)', every \(advertisingInterval)" }
        guard let held = advertisingHeld else { return "no" }
        return "held: the adapter does not advertise while \(held) central\(held == 1 ? " is" : "s are") connected "
            + "(no one else can join until one leaves)"
    }

    var humanDescription: String {
        var lines = [
            "adapter:     \(adapter.summary)",
            "service:     \(registered ? "registered" : "not registered")",
            "advertising: \(advertisingLine)",
            "counter:     next \(nextCounter), last notified \(lastNotified.map(String.init) ?? "none")",
            "sending:     \(notifying ? "subscribed" : "nobody subscribed"), MTU \(sendingMTU), \(pendingSends) queued",
            "received:    \(messagesReceived) message\(messagesReceived == 1 ? "" : "s")",
            "delivery:    \(delivery.line)",
            "centrals:    \(centrals.isEmpty ? "none" : String(centrals.count))",
        ]
        if let allow {
            lines.append(
                "allowed:     \(allow.centrals.map(\.description).joined(separator: ", ")) only; "
                    + "\(allow.dropped) value\(allow.dropped == 1 ? "" : "s") from others dropped")
        }
        if let secure {
            lines.append(
                "secure:      pairing with a passkey required; \(secure.paired) paired, \(secure.failed) failed"
                    + (secure.pairing.isEmpty
                        ? "" : ", in progress: \(secure.pairing.map(\.description).joined(separator: ", "))"))
        }
        if let uart {
            let who = uart.centrals.isEmpty ? "none known" : uart.centrals.map(\.description).joined(separator: ", ")
            lines.append(
                "UART apps:   \(who); TX \(uart.subscribed ? "subscribed" : "not subscribed"), "
                    + "\(uart.lines) line\(uart.lines == 1 ? "" : "s") received, \(uart.queued) values queued")
        }
        if only != nil, let central = centrals.first { return lines.joined(separator: "\n") + "\n" + central.detail }
        for central in centrals {
            lines.append(
                "  \(String(central.number).leftPadded(to: 2)). \(central.address)  MTU \(central.mtu.map(String.init) ?? "unknown")  "
                    + (central.session.map { "protocol 2 (session \($0))" }
                        ?? (central.subscribed ? "subscribed" : "not subscribed"))
                    + "  \(central.counters) counters, \(central.messages) messages"
                    + (central.lastWritten.map { "  last written \(Hex.preview($0, limit: 16))" } ?? "")
                    + (central.receiving.map {
                        "  receiving a message: \($0.received) of \($0.total.map(String.init) ?? "?") bytes"
                    } ?? ""))
        }
        return lines.joined(separator: "\n")
    }
}

extension PeripheralStatus.Central {
    /// `status CENTRAL`: the central's lines, one thing each.
    var detail: String {
        var lines = [
            "central \(number): \(address)",
            "  MTU:       \(mtu.map(String.init) ?? "unknown")",
            "  protocol:  "
                + (session.map { "2 (session \($0)), on \(lane == .l2cap ? "its L2CAP lane" : "GATT")" } ?? "1"),
            "  notified:  \(subscribed ? "subscribed" : "not subscribed")",
            "  received:  \(counters) counter\(counters == 1 ? "" : "s"), \(messages) message\(messages == 1 ? "" : "s")",
        ]
        if let lastWritten { lines.append("  last:      \(Hex.preview(lastWritten, limit: 32))") }
        if let receiving {
            lines.append(
                "  receiving: \(receiving.received) of \(receiving.total.map(String.init) ?? "?") bytes of a message")
        }
        return lines.joined(separator: "\n")
    }
}

extension String {
    /// Spaces before, up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
