import RelayApp
import RelayBlueZ
import RelayEndpoint
import RelayProtocol

/// Connected centrals, their MTUs and their subscriptions.
extension PeripheralSession {
    /// The connected centrals `status` lists, sorted by address (a UART app is listed apart,
    /// unless it is a relay central too): `status CENTRAL`'s numbers count in this order.
    var listedCentrals: [BluetoothAddress] {
        centrals.filter { address, central in
            !(uart.centrals.contains(address) && !central.subscribed && sessionNumber(at: address) == nil)
        }.keys.sorted()
    }

    /// Whether notifications would reach someone (on either characteristic).
    var hasSubscribers: Bool { hasLegacySubscribers || !delivery.linkedSessions.isEmpty }
    /// Whether `send` reaches anyone: a relay central, or a UART app subscribed to TX.
    var hasAudience: Bool { hasSubscribers || (settings.uart != nil && uart.subscribed) }

    /// How many centrals a notification may reach. bluetoothd names only the first subscriber
    /// (`AcquireNotify`/`StartNotify` come once, however many centrals enable notifications) and
    /// sends every notification to each central that enabled them, so while notifications are on
    /// every central connected then counts (see `notifyStarted`).
    var subscriberCount: Int {
        let flagged = centrals.values.filter(\.subscribed).count
        return subscriptions.notifying ? max(1, flagged) : flagged
    }

    /// The MTU messages are chunked for: the smallest among the centrals that may receive them.
    /// bluetoothd truncates a notification to each link's MTU - 3 without telling anyone, so
    /// a central that subscribed silently with a smaller MTU would get corrupted frames if the
    /// chunks followed the first subscriber's MTU only. A central whose MTU is unknown counts
    /// with the notification socket's MTU; 23 when nothing is known.
    var sendingMTU: MTU {
        let subscribed = centrals.values.filter(\.subscribed)
        let audience = subscribed.isEmpty ? Array(centrals.values) : subscribed
        var mtus = audience.map { $0.mtu ?? subscriptions.notifyLinkMTU ?? .default }
        if let mtu = subscriptions.notifyLinkMTU { mtus.append(mtu) }
        return mtus.min() ?? .default
    }

    mutating func ensureCentral(_ address: BluetoothAddress) -> [PeripheralAction] {
        guard centrals[address] == nil else { return [] }
        // While notifications are on, bluetoothd does not tell when another central enables
        // them: one that connects now may receive every notification.
        centrals[address] = ConnectedCentral(
            address: address, maxMessage: settings.maxMessage, subscribed: subscriptions.notifying)
        return [.report(.connected(address))]
    }

    mutating func learnMTU(_ mtu: MTU, of address: BluetoothAddress) -> [PeripheralAction] {
        guard centrals[address]?.learn(mtu) == true else { return [] }
        return [.report(.mtu(address, mtu))]
    }

    mutating func disconnect(_ address: BluetoothAddress, reason: String) -> [PeripheralAction] {
        identities[address] = nil
        pairing.left(address)
        sessionsLinkDown(at: address)
        let uartLines = lanesLinkDown(at: address) + uartCentralLeft(address)
        guard var central = centrals.removeValue(forKey: address) else { return uartLines }
        var actions: [PeripheralAction] = uartLines
        if let dropped = central.inbound.reset(because: .linkEnded(reason)),
            let event = TransferEvent(dropped, from: PeerName(.central, address))
        {
            actions.append(.report(.transfer(event)))
        }
        // A relay central's subscription in session ends with its link: said here when the link's
        // end comes before bluetoothd stops the session's notifications (`sessionNotifyStopped`
        // says it otherwise), so that a central that leaves reads the same either way.
        if central.reportedInSession { actions.append(.report(.unsubscribed(address))) }
        actions.append(.report(.disconnected(address)))
        if central.subscribed, !hasLegacySubscribers {
            actions += abandonOutbox(because: .lastSubscriberLeft)
        }
        return actions
    }

    /// Notifications were enabled. bluetoothd calls `AcquireNotify` (with the device) or
    /// `StartNotify` only for the first central that enables them and closes the socket (or
    /// calls `StopNotify`) only when the last one disables them; the others come and go
    /// silently. So every connected central is flagged as a possible receiver, and the event
    /// names the central bluetoothd named.
    mutating func notifyStarted(from address: BluetoothAddress?, mtu: MTU?) -> [PeripheralAction] {
        var actions: [PeripheralAction] = []
        let wasNotifying = subscriptions.notifying
        let alreadyKnown = address.flatMap { centrals[$0]?.subscribed } ?? false
        subscriptions.notifyStarted(mtu: mtu)
        if let address {
            actions += ensureCentral(address)
            if let mtu { actions += learnMTU(mtu, of: address) }
        }
        for key in centrals.keys { centrals[key]?.hearsNotifications(true) }
        if wasNotifying, address == nil || alreadyKnown { return actions }
        actions.append(.report(.subscribed(address, mtu: mtu)))
        return actions
    }

    /// Notifications were disabled: by one known central (`from`), or, when bluetoothd closes
    /// the socket or calls `StopNotify` (`from` nil), by every central, each reported by address.
    mutating func notifyStopped(from address: BluetoothAddress?) -> [PeripheralAction] {
        var actions: [PeripheralAction] = []
        if let address {
            guard centrals[address]?.subscribed == true else { return [] }
            centrals[address]?.hearsNotifications(false)
            subscriptions.subscriberLeft(othersSubscribed: centrals.values.contains { $0.subscribed })
            actions.append(.report(.unsubscribed(address)))
        } else {
            let leaving = centrals.values.filter(\.subscribed).compactMap(\.address).sorted()
            guard subscriptions.notifying || !leaving.isEmpty else { return [] }
            subscriptions.notifyStopped()
            for key in centrals.keys { centrals[key]?.hearsNotifications(false) }
            actions += leaving.isEmpty ? [.report(.unsubscribed(nil))] : leaving.map { .report(.unsubscribed($0)) }
        }
        if !hasLegacySubscribers {
            actions += abandonOutbox(because: .noSubscriber)
        }
        return actions
    }
}
