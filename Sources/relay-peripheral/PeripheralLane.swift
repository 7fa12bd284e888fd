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
    fileprivate(set) var deframer = LaneDeframer()
    /// When the bytes of the value not complete yet began to arrive (nil: none is pending).
    fileprivate(set) var incompleteSince: Double?
    fileprivate(set) var outbox: LaneOutbox
}

/// The centrals' open L2CAP channels, by the id the backend gave each, with the methods that
/// change them: one channel per central, bytes in (framing, with when an incomplete value began),
/// values out (each channel's `LaneOutbox`). No I/O. Part of `PeripheralSession` (see
/// `PeripheralSession+Lanes`, which decides what opens and closes).
struct PeripheralLanes: Sendable {
    private var channels: [LaneID: PeripheralLane] = [:]

    /// Channel `id`, if it is open.
    subscript(id: LaneID) -> PeripheralLane? { channels[id] }

    var isEmpty: Bool { channels.isEmpty }

    /// The open channels, in order.
    var ids: [LaneID] { channels.keys.sorted() }

    /// Whether a value waits on some channel.
    var holdValues: Bool { channels.values.contains { $0.outbox.bytes > 0 } }

    /// Whether the central at `address` has a channel on a link other than `connection`.
    func hasChannel(of address: BluetoothAddress, onOtherLinkThan connection: ConnectionHandle) -> Bool {
        channels.values.contains { $0.address == address && $0.connection != nil && $0.connection != connection }
    }

    /// Opens channel `id` as `lane`.
    mutating func open(_ id: LaneID, _ lane: PeripheralLane) {
        channels[id] = lane
    }

    /// Closes channel `id`: what it was (nil: it was not open).
    @discardableResult
    mutating func close(_ id: LaneID) -> PeripheralLane? {
        channels.removeValue(forKey: id)
    }

    /// Closes the channels of the central at `address`: their ids.
    mutating func closeAll(of address: BluetoothAddress) -> [LaneID] {
        let gone = channels.filter { $0.value.address == address }.map(\.key).sorted()
        for id in gone { channels[id] = nil }
        return gone
    }

    /// Bytes arrived on channel `id` at `now`: the values they complete (nil: the channel is not
    /// open). Broken framing closes the channel and is thrown.
    mutating func receive(_ bytes: [UInt8], on id: LaneID, at now: Double) throws(LaneFrameError) -> [[UInt8]]? {
        guard var lane = channels[id] else { return nil }
        let values: [[UInt8]]
        do {
            values = try lane.deframer.take(bytes)
        } catch {
            channels[id] = nil
            throw error
        }
        if lane.deframer.pendingCount == 0 {
            lane.incompleteSince = nil
        } else if !values.isEmpty || lane.incompleteSince == nil {
            lane.incompleteSince = now  // a value began in these bytes
        }
        channels[id] = lane
        return values
    }

    /// Queues a lane-framed value on channel `id`: false when it was not (see `LaneOutbox.add`).
    mutating func queue(_ framed: [UInt8], on id: LaneID) -> Bool {
        channels[id]?.outbox.add(framed) == true
    }

    /// The units to hand channel `id`'s socket now (nil: none, or it is full or busy).
    mutating func takeUnsent(on id: LaneID) -> [[UInt8]]? {
        channels[id]?.outbox.takeUnsent()
    }

    /// Channel `id`'s socket took `taken` units and was `full` (or not) at `now`.
    mutating func took(_ taken: Int, full: Bool, on id: LaneID, at now: Double) {
        channels[id]?.outbox.took(taken, full: full, at: now)
    }

    /// Channel `id`'s socket can take more at `now`.
    mutating func writable(_ id: LaneID, at now: Double) {
        channels[id]?.outbox.writable(at: now)
    }

    /// Forgets channel `id`'s time full until `time` (it waited for a radio busy with others).
    mutating func excuse(_ id: LaneID, until time: Double) {
        channels[id]?.outbox.excuse(until: time)
    }

    /// The earliest time a full channel could count as stalled, and since when the oldest
    /// incomplete value has waited.
    func deadlines(at now: Double) -> (stall: Double?, incompleteSince: Double?) {
        (
            channels.values.compactMap { $0.outbox.stallDeadline(at: now) }.min(),
            channels.values.compactMap(\.incompleteSince).min()
        )
    }

    /// When a channel other than `id` last took a unit while full (nil: none did).
    func lastTakenWhileFull(besides id: LaneID) -> Double? {
        channels.filter { $0.key != id }.compactMap(\.value.outbox.lastTakenWhileFull).max()
    }
}
