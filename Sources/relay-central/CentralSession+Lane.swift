import RelayApp
import RelayBlueZ
import RelayEndpoint
import RelayProtocol

/// The L2CAP lane on the central (docs/protocol.md, "The L2CAP lane"): once the link is set up
/// on GATT, the lane characteristic names the peripheral's PSM, a channel opens, and the hello
/// goes on it; its welcome on the channel makes it the way protocol 2's frames travel. Whatever
/// fails on the way (no lane, a bad PSM, a channel that does not open, a hello unanswered, a
/// hang-up, broken framing) leaves the link on GATT, where protocol 2 resumes.
extension CentralSession {
    /// Hellos on the channel before it counts as unanswered (the GATT handshake follows).
    static let laneHelloAttempts = 2
    /// Tries to open the channel before the link stays on GATT: a peripheral whose backlog a
    /// stranger's flood of channels filled refuses one, and the next may get through.
    static let laneOpenAttempts = 2

    /// The link is set up with the session characteristic: read the lane's PSM first when the
    /// peripheral offers one, else greet on GATT.
    mutating func startLaneOrGreeting(_ peer: Peer, _ relay: RelayLink) -> [CentralAction] {
        delivery.laneUnused()
        guard settings.lane.usesLane else { return startGreeting() }
        guard let characteristic = relay.lane else {
            return laneNotUsed(.notOffered, quietly: settings.lane == .auto) + startGreeting()
        }
        delivery.readingLanePSM()
        return [.readLanePSM(characteristic)]
    }

    /// The lane characteristic's value: open a channel to the PSM it names; the peripheral token
    /// it names is what the channel's welcome must name.
    mutating func lanePSMRead(_ result: Result<[UInt8], BlueZError>) -> [CentralAction] {
        guard delivery.readsLanePSM, case .ready(let peer, let relay) = link else { return [] }
        let offer: LaneOffer
        switch result {
        case .failure(let error):
            return laneNotUsed(.badPSM("its lane characteristic could not be read (\(error))")) + startGreeting()
        case .success(let value):
            do {
                offer = try LaneOffer(parsing: value)
            } catch {
                return laneNotUsed(.badPSM(error.description)) + startGreeting()
            }
        }
        delivery.openingLane(offer, attempt: 1)
        return [openLane(peer, offer, relay)]
    }

    /// Opens a channel to the offer's PSM, encrypted and authenticated when the peripheral is in secure mode.
    private func openLane(_ peer: Peer, _ offer: LaneOffer, _ relay: RelayLink) -> CentralAction {
        .openLane(peer.id, offer.psm, relay.secure ? .secureConnections : .low, timeout: settings.laneOpenTimeout)
    }

    /// The channel opened: the hello goes on it.
    mutating func laneOpened(_ mtu: MTU) -> [CentralAction] {
        guard let ready = readyLink, delivery.laneOpened(mtu: mtu.lane(besideAttributeMTU: ready.mtu ?? .default))
        else {
            return [.closeLane]
        }
        return startGreeting()
    }

    /// The channel did not open: once more, then greet on GATT.
    mutating func laneOpenFailed(_ end: LaneEnd) -> [CentralAction] {
        guard case .opening(let offer, let attempt) = delivery.lane, case .ready(let peer, let relay) = link else {
            return []
        }
        if attempt < Self.laneOpenAttempts {
            delivery.openingLane(offer, attempt: attempt + 1)
            return [openLane(peer, offer, relay)]
        }
        return laneNotUsed(end) + startGreeting()
    }

    /// Bytes on the channel: the values the session characteristic would carry. A welcome for
    /// this central that names another peripheral token than the lane characteristic did comes
    /// from whatever took the PSM's channels, not from the peripheral's relay: the lane is
    /// refused (`unproven`) and the session goes on GATT.
    mutating func laneReceived(_ bytes: [UInt8]) -> [CentralAction] {
        let offer: LaneOffer
        let values: [[UInt8]]
        do throws(LaneFrameError) {
            guard let received = try delivery.laneReceived(bytes) else { return [] }
            (offer, values) = received
        } catch {
            return laneBroke(.malformed(error.description))
        }
        var actions: [CentralAction] = []
        for value in values {
            guard delivery.laneMTU != nil else { break }
            // Only a welcome's length is parsed here; data frames go straight on.
            if value.count == Welcome.length, case .welcome(let welcome)? = try? SessionFrame(parsing: value),
                welcome.central == delivery.settings.token, welcome.peripheral != offer.peripheral
            {
                return actions + traceLaneValue(value)
                    + laneBroke(.unproven(welcomed: welcome.peripheral, offered: offer.peripheral))
            }
            if value.count == Counter.encodedLength {
                // Counters go on GATT: on the channel they would be a line each, a thousand a unit.
                actions += traceLaneValue(value)
                if let event = delivery.inbound.protocolError(.counterOnLane, from: peripheralName, at: now) {
                    actions.append(.report(.transfer(event)))
                }
                continue
            }
            actions += traceLaneValue(value) + sessionValue(value)
        }
        return actions
    }

    /// The channel hung up.
    mutating func laneClosed() -> [CentralAction] {
        guard delivery.laneMTU != nil else { return [] }
        return laneBroke(.hungUp)
    }

    /// The hello on the channel went unanswered: close it and greet on GATT.
    mutating func laneHelloUnanswered() -> [CentralAction] {
        laneBroke(.unanswered)
    }

    /// The lane stops carrying this link's frames: it closes, what was on its way waits for
    /// the resume, and the hello goes on GATT.
    private mutating func laneBroke(_ end: LaneEnd) -> [CentralAction] {
        delivery.laneBroke(at: now)
        var actions: [CentralAction] = [.closeLane] + laneNotUsed(end)
        if writing.waiting?.carrier == .lane { actions += sendFinished(.failed(.closed(.lane))) }
        guard readyLink != nil else { return actions }
        return actions + startGreeting()
    }

    /// Says why the lane is not used on this link (nothing when `quietly`).
    private mutating func laneNotUsed(_ end: LaneEnd, quietly: Bool = false) -> [CentralAction] {
        delivery.laneUnused()
        return quietly ? [] : [.report(.lane(.closed(peripheralName, end)))]
    }
}
