import RelayApp
import RelayBlueZ
import RelayEndpoint
import RelayProtocol

/// The L2CAP lane on the peripheral (docs/protocol.md, "The L2CAP lane"): channels come from
/// centrals already connected over GATT; what arrives on one is taken as the session
/// characteristic's values from that central, and a session whose last hello came on a channel
/// is sent to on it.
extension PeripheralSession {
    /// Seconds a value on a channel may stay incomplete after its first bytes came before the
    /// channel is closed as malformed: relay's own values come whole in one service data unit or
    /// two, 8 KiB at most, which even the slowest radio carries in a few seconds; a peer whose
    /// length promises bytes it never sends would otherwise hold the channel open for ever.
    static let laneValueTimeout = 20.0

    /// The smallest channel MTU kept: room for values of 490 bytes in one service data unit. relay
    /// cuts its values for the lane, not for each channel (a value longer than a channel's MTU
    /// goes in several units), so a small channel costs only its own central more units; 23
    /// would cost 390 of them for one value.
    static let smallestLaneMTU = 492

    /// The listener's outcome.
    mutating func laneListening(_ result: Result<LanePSM, LaneEnd>) -> [PeripheralAction] {
        switch result {
        case .success(let psm): return [.report(.lane(.listening(psm)))]
        case .failure(let end): return [.report(.lane(.unavailable(end)))]
        }
    }

    /// A central read the lane characteristic over GATT: its channel may come.
    mutating func laneCharacteristicRead(by address: BluetoothAddress) -> [PeripheralAction] {
        centrals[address]?.noteLanePSMRead(true)
        return []
    }

    /// A channel opened: kept when its central read the lane characteristic over GATT on its
    /// current link and is admitted, else closed. One from another link than its central's open
    /// channel is a second link answering to the address: a contest.
    mutating func laneOpened(
        _ id: LaneID, from peer: BluetoothAddress, mtu: MTU, connection: ConnectionHandle?
    ) -> [PeripheralAction] {
        // The kernel names a bonded central by its identity address; relay, by the address it
        // connected with (`--secure` keeps the pair in `identities`).
        let address = centrals[peer] != nil ? peer : identities.first { $0.value == peer }?.key ?? peer
        let refusal: LaneEnd?
        if contests.contains(address) {
            refusal = .contested
        } else if !settings.lane.usesLane || centrals[address]?.readLanePSM != true {
            refusal = .notConnected
        } else if centrals[address]?.cutOff == true {
            refusal = .cutOff
        } else if mtu.value < Self.smallestLaneMTU {
            refusal = .tooSmall(mtu.value)
        } else if !admitsWriter(address) {
            refusal = .notAllowed
        } else {
            refusal = nil
        }
        if let refusal {
            return [.closeLane(id)]
                + paced(.refused(PeerName(.central, address), refusal), notAllowed: refusal == .notAllowed)
        }
        // A central's channels close when its link goes (`lanesLinkDown`), before its next link
        // can read the lane characteristic: an open one of the same address on another link is
        // another link's.
        if let connection, lanes.hasChannel(of: address, onOtherLinkThan: connection) {
            return [.closeLane(id)] + contest([address], .secondLink, named: address)
        }
        // One channel per central: the newer one is the one its relay-central uses.
        let actions = lanes.closeAll(of: address).flatMap { [.closeLane($0)] + laneGone($0) }
        let cut = MTU(laneChannelMTU: MTU.laneMaximum).lane(besideAttributeMTU: centrals[address]?.mtu ?? .default)
        lanes.open(
            id,
            PeripheralLane(
                address: address, connection: connection, mtu: cut,
                outbox: LaneOutbox(unitSize: mtu.value, window: delivery.settings.window)))
        return actions
    }

    /// Bytes on a channel: its values go where the session characteristic's would, from its central.
    mutating func laneReceived(_ id: LaneID, _ bytes: [UInt8]) -> [PeripheralAction] {
        guard let lane = lanes[id] else { return [] }
        let values: [[UInt8]]
        do throws(LaneFrameError) {
            values = try lanes.receive(bytes, on: id, at: now) ?? []
        } catch {
            let peer = PeerName(.central, lane.address)
            return [.closeLane(id)] + closure(id, .closed(peer, .malformed(error.description))) + laneGone(id)
        }
        var actions: [PeripheralAction] = []
        for value in values {
            // A lane that closed for a breach on the way (its central cut off from protocol 2)
            // takes no more of its values.
            guard lanes[id] != nil else { break }
            actions += traceLaneValue(value, from: lane.address)
            actions += sessionWritten(value, from: lane.address, mtu: nil, lane: id)
        }
        return actions
    }

    /// A channel hung up: said when it carried a session (a stranger's channels that come and go
    /// without a hello are not worth a line each).
    mutating func laneClosed(_ id: LaneID) -> [PeripheralAction] {
        guard let lane = lanes.close(id) else { return [] }
        let carried = delivery.carries(id)
        let report: [PeripheralAction] =
            carried ? [.report(.lane(.closed(PeerName(.central, lane.address), .hungUp)))] : []
        return report + laneGone(id)
    }

    /// A channel's socket failed (not full): closed, said as a hang-up when it carried a session.
    mutating func laneFailed(_ id: LaneID) -> [PeripheralAction] {
        guard lanes[id] != nil else { return [] }
        return [.closeLane(id)] + laneClosed(id)
    }

    /// `event`, unless more than 3 lines of refused or broken channels came in the last 5 s.
    private mutating func paced(_ event: LaneEvent, notAllowed: Bool = false) -> [PeripheralAction] {
        guard refusals.laneRefused(notAllowed: notAllowed, at: now) else { return [] }
        return [.report(.lane(event))]
    }

    /// The closure of channel `id`: always said when it carried a session (its central's lane is
    /// gone, however many close at once), else paced as a stranger's.
    private mutating func closure(_ id: LaneID, _ event: LaneEvent) -> [PeripheralAction] {
        delivery.carries(id) ? [.report(.lane(event))] : paced(event)
    }

    /// A channel is gone: a session on it waits for its central's next hello (on GATT, or on a
    /// new channel), as after a link drop, and resumes then.
    mutating func laneGone(_ id: LaneID) -> [PeripheralAction] {
        delivery.laneGone(id, at: now)
        return startSending()
    }

    /// Queues `value` (lane-framed) on each of the channels `route` that is still open and hands
    /// the channels that can take it their units: each channel goes at its own pace.
    mutating func queueOnLanes(_ value: [UInt8], route: [LaneID]) -> [PeripheralAction] {
        let framed = LaneFraming.encode(value)
        var actions: [PeripheralAction] = []
        for id in route {
            guard lanes.queue(framed, on: id) else { continue }
            actions += pumpLane(id)
        }
        return actions
    }

    /// Hands channel `id` what waits for it, unless the socket is full or still has units.
    private mutating func pumpLane(_ id: LaneID) -> [PeripheralAction] {
        guard let units = lanes.takeUnsent(on: id) else { return [] }
        return [.send(units, on: .lane(id))]
    }

    /// The outcome of a `.send` on channel `id`: the socket took `taken` units, and was full (or not).
    mutating func laneTook(_ id: LaneID, taken: Int, full: Bool) -> [PeripheralAction] {
        lanes.took(taken, full: full, on: id, at: now)
        return pumpLane(id)
    }

    /// The channel's socket can take more after it was full.
    mutating func laneWritable(_ id: LaneID) -> [PeripheralAction] {
        lanes.writable(id, at: now)
        return pumpLane(id)
    }

    /// When a full channel could count as stalled (`LaneOutbox.stallSeconds` full within its
    /// window), or a value on a channel has stayed incomplete for `laneValueTimeout`, whichever
    /// comes first.
    var laneStallDeadline: Double? {
        let (stall, incompleteSince) = lanes.deadlines(at: now)
        return [stall, incompleteSince.map { $0 + Self.laneValueTimeout }].compactMap { $0 }.min()
    }

    /// Closes the channels that were full for `LaneOutbox.stallSeconds` of the last
    /// `LaneOutbox.stallWindow` (stalled), and those whose value has stayed incomplete for
    /// `laneValueTimeout` (malformed): their sessions wait for a hello (on GATT, or a new channel),
    /// and the rest goes on. Time a channel was full until `busyRadioSeconds` after another full
    /// channel last took a unit does not count: it waited for the radio (fifteen centrals share
    /// one controller's buffers, and the kernel serves their channels in turn); its time full
    /// counts from when the radio went quiet. A stranger's channel that takes nothing is closed
    /// then; until then it holds at most `LaneOutbox.limit` bytes, and only its own.
    mutating func closeStalledLanes() -> [PeripheralAction] {
        var actions: [PeripheralAction] = []
        for id in lanes.ids {
            guard let lane = lanes[id] else { continue }
            let end: LaneEnd
            if let since = lane.incompleteSince, now >= since + Self.laneValueTimeout {
                end = .malformed(
                    "a value of \(lane.deframer.pendingLength ?? 0) bytes was incomplete after \(Int(Self.laneValueTimeout)) s "
                        + "(\(max(0, lane.deframer.pendingCount - LaneFraming.headerLength)) of them came)")
            } else if lane.outbox.isStalled(at: now) {
                // Time full until another channel last took a unit was the radio's.
                if let busy = radioBusyUntil(besides: id) { lanes.excuse(id, until: busy) }
                guard lanes[id]?.outbox.isStalled(at: now) == true else { continue }
                end = .stalled(seconds: Int(LaneOutbox.stallSeconds), window: Int(LaneOutbox.stallWindow))
            } else {
                continue
            }
            actions.append(.closeLane(id))
            actions += closure(id, .closed(PeerName(.central, lane.address), end))
            lanes.close(id)
            actions += laneGone(id)
        }
        return actions
    }

    /// How long after another channel took a unit the radio counts as busy with it.
    static let busyRadioSeconds = 2.0

    /// Until when the radio was busy with channels other than `id`: `busyRadioSeconds` after the
    /// last unit one of them took while it was full itself (nil: none did). A channel that takes
    /// all it is given is not contending for the radio: it excuses nobody.
    private func radioBusyUntil(besides id: LaneID) -> Double? {
        lanes.lastTakenWhileFull(besides: id).map { min(now, $0 + Self.busyRadioSeconds) }
    }

    /// The channels of the centrals at `address` go with its link.
    mutating func lanesLinkDown(at address: BluetoothAddress) -> [PeripheralAction] {
        let gone = lanes.closeAll(of: address)
        guard !gone.isEmpty else { return [] }
        return gone.map { .closeLane($0) } + startSending()
    }

    /// The channels the session characteristic's next value goes on instead: every linked
    /// session's, when each is on one (nil: notified on GATT, which every relay central hears).
    var laneRoute: [LaneID]? {
        let linked = delivery.linkedSessions
        guard !linked.isEmpty else { return nil }
        let route = linked.compactMap(\.lane)
        return route.count == linked.count ? route.sorted() : nil
    }

    /// The MTU frames are cut for on `route`: the smallest channel's.
    func laneMTU(of route: [LaneID]) -> MTU? {
        route.compactMap { lanes[$0]?.mtu }.min()
    }
}
