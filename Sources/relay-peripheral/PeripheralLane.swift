import RelayApp
import RelayBlueZ
import RelayProtocol

/// One central's L2CAP channel: who opened it, the room for values on it, the bytes of a value
/// not complete yet (with when its first bytes came) and what waits to go on it. Part of
/// `PeripheralSession`.
struct PeripheralLane: Sendable {
    let address: BluetoothAddress
    /// The link it came on (nil: the kernel did not say).
    let connection: ConnectionHandle?
    /// The room for values relay sends on it (cut into the channel's service data units).
    let mtu: MTU
    var deframer = LaneDeframer()
    /// When the bytes of the value not complete yet began to arrive (nil: none is pending).
    var incompleteSince: Double?
    var outbox: LaneOutbox
}
