import RelayProtocol

/// What bluetoothd says of the notifications' subscribers as a whole (each central's own
/// subscriptions are in `ConnectedCentral`). Part of `PeripheralSession`.
struct PeripheralSubscriptions: Equatable, Sendable {
    /// bluetoothd has notifications enabled on the notify characteristic.
    var notifying = false
    /// MTU from the latest acquired notification socket (applies to all subscribers).
    var notifyLinkMTU: MTU?
    /// bluetoothd has notifications enabled on the session characteristic.
    var sessionNotifying = false
    /// MTU from the latest acquired session notification socket.
    var sessionLinkMTU: MTU?
}
