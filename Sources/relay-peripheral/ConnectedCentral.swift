import RelayBlueZ
import RelayEndpoint
import RelayProtocol

/// What the peripheral knows about one connected central.
struct ConnectedCentral {
    /// nil for writes that came without a device option (never from bluetoothd itself).
    let address: BluetoothAddress?
    /// The link's ATT MTU, once a write, read or acquired socket told it.
    private(set) var mtu: MTU?
    /// Whether this central may hear the notify characteristic (the original apps, version-1 relays).
    private(set) var subscribed = false
    /// Whether this central is a relay central in session (protocol 2): it hears the session
    /// characteristic only.
    private(set) var inSession = false
    /// Whether it was reported `subscribed` in session and not `unsubscribed` since: a central
    /// that leaves is reported unsubscribed once, whether bluetoothd first stops the session's
    /// notifications or first says the link went (either comes first).
    private(set) var reportedInSession = false
    /// When this central wrote its last hellos on this link: at most
    /// `PeripheralDelivery.maximumHellosPerWindow` + 1, the oldest first.
    private(set) var helloTimes: [Double] = []
    /// Whether this central broke protocol 2 on this link: its session frames are not read.
    private(set) var cutOff = false
    /// Whether it read the lane characteristic on this link: only then is its L2CAP channel kept.
    private(set) var readLanePSM = false
    /// Rebuilds the messages this central writes.
    var inbound: InboundPipeline

    /// `subscribed`: notifications are on (bluetoothd does not say when another central enables
    /// them: one that connects then may receive every notification).
    init(address: BluetoothAddress?, maxMessage: Int, subscribed: Bool = false) {
        self.address = address
        self.inbound = InboundPipeline(maxMessage: maxMessage)
        self.subscribed = subscribed
    }

    /// The link's MTU is `mtu`: false when it was already known.
    mutating func learn(_ mtu: MTU) -> Bool {
        guard self.mtu != mtu else { return false }
        self.mtu = mtu
        return true
    }

    /// Notifications of the notify characteristic reach it (true) or not any more (false).
    /// A central in session hears the session characteristic only.
    mutating func hearsNotifications(_ on: Bool) {
        subscribed = on && !inSession
    }

    /// It said hello: a relay central in session, which hears the session characteristic only.
    mutating func joinedSession() {
        inSession = true
        subscribed = false
    }

    /// It was reported `subscribed` in session (true) or `unsubscribed` (false).
    mutating func noteReportedInSession(_ reported: Bool) {
        reportedInSession = reported
    }

    /// It said hello at `now`: the hellos counted within `window` seconds, when more than
    /// `limit` came within it (a flood), else nil.
    mutating func saidHello(at now: Double, limit: Int, window: Double) -> Int? {
        helloTimes.append(now)
        if helloTimes.count > limit + 1 { helloTimes.removeFirst() }
        guard helloTimes.count > limit, now - helloTimes[0] < window else { return nil }
        return helloTimes.count
    }

    /// It broke protocol 2 on this link: its session frames are not read until it connects again.
    mutating func cutOffFromProtocol2() {
        cutOff = true
    }

    /// It read the lane characteristic on this link (true), or its link's claim to it is gone (false).
    mutating func noteLanePSMRead(_ read: Bool) {
        readLanePSM = read
    }
}
