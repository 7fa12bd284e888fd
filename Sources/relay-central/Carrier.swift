import RelayBlueZ
import RelayProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// How one of relay-central's values travels: written to a characteristic through bluetoothd
/// (by its write path), or sent on the link's L2CAP lane. The session picks it per value from the
/// link (`CentralSession.gattCarrier`, `frameCarrier`: counters and UART text always on GATT,
/// protocol 2's frames on the lane while it is open) and returns one `.send` with it; the backend
/// answers every send with one `.sendFinished`. A third way would be a third case here, its
/// framing and room below, and its socket in the backend.
enum Carrier: Equatable, Sendable {
    /// A characteristic's value: `AcquireWrite`'s socket, `WriteValue` command or request.
    case gatt(CharacteristicID, WritePath)
    /// The L2CAP lane: relay's 2-byte length in front of each value (`LaneFraming`).
    case lane

    /// How much of an MTU a value may take on this carrier.
    var valueCarrier: ValueCarrier {
        switch self {
        case .gatt: .write
        case .lane: .lane
        }
    }

    /// The bytes that go on the carrier for `value`: the value itself, or framed for the lane.
    func framed(_ value: [UInt8]) -> [UInt8] {
        switch self {
        case .gatt: value
        case .lane: LaneFraming.encode(value)
        }
    }

    /// How events name it: `the write socket`, `WriteValue`, `the L2CAP channel`.
    var name: String {
        switch self {
        case .gatt(_, .socket): "write socket"
        case .gatt(_, .writeValue), .gatt(_, .writeRequest): "WriteValue"
        case .lane: "L2CAP channel"
        }
    }
}

/// How one `.send` went: the only answer to it.
enum SendOutcome: Equatable, Sendable {
    /// Taken: queued in the socket, or `WriteValue` replied.
    case sent
    /// The carrier's socket is full and did not take it: the session keeps the value and sends it
    /// again at `.carrierWritable` of the same carrier.
    case full
    case failed(TransportError)
}

/// Why a value did not go, in the carrier's own terms (the text of a failed write is made from
/// it in `CentralProblem.writeReason`).
enum TransportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The carrier's socket or channel is closed (or closed while the value waited for room).
    case closed(Carrier)
    /// The socket refused the value (`errno`).
    case socketFailed(Carrier, errno: Int32)
    /// bluetoothd answered `WriteValue` with an error (or is not running).
    case bluez(BlueZError)
    /// The link went back to protocol 1 while the value waited for room.
    case fellBackToVersion1

    var description: String {
        switch self {
        case .closed(let carrier): "the \(carrier.name) is closed"
        case .socketFailed(let carrier, let code): "\(carrier.name): \(String(cString: strerror(code)))"
        case .bluez(let error): error.description
        case .fellBackToVersion1: "the link went back to protocol 1 before it was written"
        }
    }
}

/// The value in flight, as it was handed to its carrier: a full carrier's socket leaves it here
/// until it can take more.
struct CarriedValue: Equatable, Sendable {
    var value: [UInt8]
    var carrier: Carrier
}
