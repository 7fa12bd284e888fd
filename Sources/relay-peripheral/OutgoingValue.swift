import RelayApp
import RelayProtocol

/// The carriers one of relay-peripheral's values goes on: notified on a characteristic through
/// bluetoothd (one value at a time, every subscribed central hears it), or queued on centrals'
/// L2CAP channels (each channel's `LaneOutbox` at its own pace). Chosen per value: protocol 2's
/// frames go on the channels of the sessions they are for while every linked session has one
/// (`laneRoute`); counters, version-1 frames and UART text are always notified.
enum PeripheralRoute: Equatable, Sendable {
    case notification(RelayCharacteristic)
    /// The channels, the route the value was cut for.
    case lanes([LaneID])

    /// How much of an MTU a value may take on this route.
    var valueCarrier: ValueCarrier {
        switch self {
        case .notification: .notification
        case .lanes: .lane
        }
    }
}

/// One value on its way, and what to report once it is handed over.
struct OutgoingValue: Equatable, Sendable {
    let bytes: [UInt8]
    let counter: Counter?
    /// `notified` after a counter, `sent` after a message's last frame, else nil.
    let completion: PeripheralEvent?
    /// The carriers it goes on.
    var route = PeripheralRoute.notification(.notify)
    /// More to report once it is handed over (`unconfirmed` per version-1 central).
    var alsoReport: [PeripheralEvent] = []
    /// A protocol-2 frame with its message's last byte: the message is `sent` once it is handed over.
    var final: FinalFrame? = nil
}
