import RelayProtocol

/// What bluetoothd says of the notifications' subscribers as a whole (each central's own
/// subscriptions are in `ConnectedCentral`). Part of `PeripheralSession`.
struct PeripheralSubscriptions: Equatable, Sendable {
    /// bluetoothd has notifications enabled on the notify characteristic.
    private(set) var notifying = false
    /// MTU from the latest acquired notification socket (applies to all subscribers).
    private(set) var notifyLinkMTU: MTU?
    /// bluetoothd has notifications enabled on the session characteristic.
    private(set) var sessionNotifying = false
    /// MTU from the latest acquired session notification socket.
    private(set) var sessionLinkMTU: MTU?

    /// Notifications of the notify characteristic are on (`mtu`: an acquired socket's).
    mutating func notifyStarted(mtu: MTU?) {
        notifying = true
        if let mtu { notifyLinkMTU = mtu }
    }

    /// One known central unsubscribed: notifications stay on while `othersSubscribed`.
    mutating func subscriberLeft(othersSubscribed: Bool) {
        notifying = othersSubscribed
    }

    /// Notifications of the notify characteristic are off for everyone; the socket's MTU goes.
    mutating func notifyStopped() {
        notifying = false
        notifyLinkMTU = nil
    }

    /// Notifications of the session characteristic are on (`mtu`: an acquired socket's).
    mutating func sessionNotifyStarted(mtu: MTU?) {
        sessionNotifying = true
        if let mtu { sessionLinkMTU = mtu }
    }

    /// Notifications of the session characteristic are off.
    mutating func sessionNotifyStopped() {
        sessionNotifying = false
        sessionLinkMTU = nil
    }
}
