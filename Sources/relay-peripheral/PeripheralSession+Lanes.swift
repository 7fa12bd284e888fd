import RelayApp
import RelayEndpoint
import RelayProtocol

/// One central's L2CAP channel: who opened it, the room for values on it and the bytes of a
/// value not complete yet. Part of `PeripheralSession`.
struct PeripheralLane: Sendable {
    let address: BluetoothAddress
    let mtu: MTU
    var deframer = LaneDeframer()
}

/// The L2CAP lane on the peripheral (docs/protocol.md, "The L2CAP lane"): channels come from
/// centrals already connected over GATT; what arrives on one is taken as the session
/// characteristic's values from that central, and a session whose last hello came on a channel
/// is sent to on it.
extension PeripheralSession {
    /// The listener's outcome.
    mutating func laneListening(_ result: Result<LanePSM, LaneEnd>) -> [PeripheralAction] {
        switch result {
        case .success(let psm): return [.report(.lane(.listening(psm)))]
        case .failure(let end): return [.report(.lane(.unavailable(end)))]
        }
    }

    /// A central read the lane characteristic over GATT: its channel may come.
    mutating func laneCharacteristicRead(by address: BluetoothAddress) -> [PeripheralAction] {
        centrals[address]?.readLanePSM = true
        return []
    }

    /// A channel opened: kept when its central read the lane characteristic over GATT on its
    /// current link and is admitted, else closed.
    mutating func laneOpened(_ id: LaneID, from address: BluetoothAddress, mtu: MTU) -> [PeripheralAction] {
        let refusal: LaneEnd?
        if !settings.lane.usesLane || centrals[address]?.readLanePSM != true {
            refusal = .notConnected
        } else if !admitsWriter(address) {
            refusal = .notAllowed
        } else {
            refusal = nil
        }
        if let refusal {
            refusals.notAllowedValues += refusal == .notAllowed ? 1 : 0
            return [.closeLane(id)] + paced(.refused(PeerName(.central, address), refusal))
        }
        var actions: [PeripheralAction] = []
        // One channel per central: the newer one is the one its relay-central uses.
        for (old, lane) in lanes where lane.address == address {
            lanes[old] = nil
            actions.append(.closeLane(old))
            actions += laneGone(old)
        }
        lanes[id] = PeripheralLane(address: address, mtu: mtu)
        return actions
    }

    /// Bytes on a channel: its values go where the session characteristic's would, from its central.
    mutating func laneReceived(_ id: LaneID, _ bytes: [UInt8], time: Double) -> [PeripheralAction] {
        guard var lane = lanes[id] else { return [] }
        let values: [[UInt8]]
        do {
            values = try lane.deframer.take(bytes)
        } catch {
            lanes[id] = nil
            let peer = PeerName(.central, lane.address)
            return [.closeLane(id)] + paced(.closed(peer, .malformed(error.description))) + laneGone(id)
        }
        lanes[id] = lane
        var actions: [PeripheralAction] = []
        for value in values {
            // A lane that closed for a breach on the way takes no more of its values.
            guard lanes[id] != nil else { break }
            actions += traceLaneValue(value, from: lane.address)
            actions += sessionWritten(value, from: lane.address, mtu: nil, time: time, lane: id)
        }
        return actions
    }

    /// A channel hung up: said when it carried a session (a stranger's channels that come and go
    /// without a hello are not worth a line each).
    mutating func laneClosed(_ id: LaneID) -> [PeripheralAction] {
        guard let lane = lanes.removeValue(forKey: id) else { return [] }
        let carried = delivery.sessions.values.contains { $0.lane == id }
        let report: [PeripheralAction] =
            carried ? [.report(.lane(.closed(PeerName(.central, lane.address), .hungUp)))] : []
        return report + laneGone(id)
    }

    /// `event`, unless more than 3 lines of refused or broken channels came in the last 5 s.
    private mutating func paced(_ event: LaneEvent) -> [PeripheralAction] {
        guard case .allow = refusals.laneRefusals.admit(now: now) else { return [] }
        return [.report(.lane(event))]
    }

    /// A channel is gone: a session on it waits for its central's next hello (on GATT, or on a
    /// new channel), as after a link drop, and resumes then.
    mutating func laneGone(_ id: LaneID) -> [PeripheralAction] {
        for (number, session) in delivery.sessions where session.lane == id {
            delivery.sessions[number]?.lane = nil
            guard session.linked else { continue }
            delivery.sessions[number]?.linked = false
            delivery.sessions[number]?.awaySince = now
            delivery.sessions[number]?.receiver.linkDown(at: now)
            delivery.outgoing.sender.linkDown(number, at: now)
        }
        forgetValueForLanes()
        return startSending()
    }

    /// A value a full channel did not take waits for that channel's writable readiness, which a
    /// closed channel never gives: it is let go (protocol 2 sends its bytes again where they are
    /// due), and what follows goes the way the sessions are now.
    private mutating func forgetValueForLanes() {
        if sending.blocked?.onLanes == true { sending.blocked = nil }
    }

    /// The channels of the centrals at `address` go with its link.
    mutating func lanesLinkDown(at address: BluetoothAddress) -> [PeripheralAction] {
        let gone = lanes.filter { $0.value.address == address }.map(\.key).sorted()
        for id in gone { lanes[id] = nil }
        if !gone.isEmpty { forgetValueForLanes() }
        return gone.map { .closeLane($0) }
    }

    /// The channels the session characteristic's next value goes on instead: every linked
    /// session's, when each is on one (nil: notified on GATT, which every relay central hears).
    var laneRoute: [LaneID]? {
        let linked = delivery.linkedSessions
        guard !linked.isEmpty else { return nil }
        let route = linked.compactMap(\.lane)
        return route.count == linked.count ? route.sorted() : nil
    }

    /// The MTU frames are cut for when `laneRoute` is taken: the smallest channel's.
    var laneRouteMTU: MTU? {
        guard let route = laneRoute else { return nil }
        return route.compactMap { lanes[$0]?.mtu }.min()
    }
}
