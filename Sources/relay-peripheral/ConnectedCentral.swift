import RelayBlueZ
import RelayEndpoint
import RelayProtocol

/// What the peripheral knows about one connected central.
struct ConnectedCentral {
    /// nil for writes that came without a device option (never from bluetoothd itself).
    let address: BluetoothAddress?
    /// The link's ATT MTU, once a write, read or acquired socket told it.
    var mtu: MTU?
    /// Whether this central may hear the notify characteristic (the original apps, version-1 relays).
    var subscribed = false
    /// Whether this central is a relay central in session (protocol 2): it hears the session
    /// characteristic only.
    var inSession = false
    /// Whether it was reported `subscribed` in session and not `unsubscribed` since: a central
    /// that leaves is reported unsubscribed once, whether bluetoothd first stops the session's
    /// notifications or first says the link went (either comes first).
    var reportedInSession = false
    /// When this central wrote its last hellos on this link: at most
    /// `PeripheralDelivery.maximumHellosPerWindow` + 1, the oldest first.
    var helloTimes: [Double] = []
    /// Whether this central broke protocol 2 on this link: its session frames are not read.
    var cutOff = false
    /// Whether it read the lane characteristic on this link: only then is its L2CAP channel kept.
    var readLanePSM = false
    /// Rebuilds the messages this central writes.
    var inbound: InboundPipeline

    init(address: BluetoothAddress?, maxMessage: Int) {
        self.address = address
        self.inbound = InboundPipeline(maxMessage: maxMessage)
    }
}
