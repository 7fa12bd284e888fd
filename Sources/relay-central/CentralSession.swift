import RelayApp
import RelayBlueZ
import RelayEndpoint
import RelayProtocol
import RelayREPL

/// The central's state machine: it takes commands and BlueZ observations (`CentralInput`) and
/// returns what to do (`CentralAction`); the driver performs the I/O and feeds the results back.
///
/// It owns the scan list, the link (connect → services resolved → characteristics checked →
/// subscribed + MTU learned → ready), the counters, the inbound pipeline for notifications and
/// the paced queue of outgoing values (one in flight at a time).
struct CentralSession {
    /// The link to a peripheral.
    enum Link: Equatable {
        case idle
        /// `Connect` was issued; `seenConnected` once `Connected` went true.
        case connecting(Peer, seenConnected: Bool)
        /// Services resolved; waiting for the characteristics.
        case resolving(Peer)
        /// Characteristics checked; subscribing and learning the MTU.
        case subscribing(Peer, RelayLink)
        case ready(Peer, RelayLink)
        case disconnecting(Peer)
    }

    /// The relay characteristics of a link and how far the set-up has come.
    struct RelayLink: Equatable {
        var write: CharacteristicID
        var notify: CharacteristicID
        /// The session characteristic (protocol 2), when the peripheral offers it and it is used.
        var session: CharacteristicID?
        var notifying = false
        /// How notifications arrive, once subscribed.
        var notifyVia: NotifyPath?
        var mtu: MTU?
        var path: WritePath?
        /// `.nus`: a Nordic UART Service device (`write` is its RX, `notify` its TX: text only).
        var service = MessageVia.relay
        /// The lane characteristic, when the peripheral offers an L2CAP lane and `--lane` uses it.
        var lane: CharacteristicID?
        /// The peripheral is in secure mode (it serves the pairing characteristic): a channel
        /// asks for an encrypted, authenticated link too.
        var secure = false

        /// Where values are written: the session characteristic with protocol 2, else the write one.
        var dataWrite: CharacteristicID { session ?? write }
        /// Where notifications come from: the session characteristic with protocol 2, else the notify one.
        var dataNotify: CharacteristicID { session ?? notify }
    }

    let settings: CentralSettings
    /// The loop's time when the current input is handled (monotonic seconds).
    var now = 0.0
    var adapter: AdapterState = .unknown
    var adapterInfo: AdapterInfo?
    /// Scans and what they found (see `CentralSession+Scanning`).
    var scanning = CentralScanning()
    var devices: [DeviceID: DeviceInfo] = [:]
    var link: Link = .idle
    /// How the disconnection in progress (`link == .disconnecting`) ends.
    var leaving = Leaving()
    /// What the link being set up (or the next one) is to: a relay peripheral, or a UART device
    /// (`--nus`, `connect --nus`).
    var linkService: MessageVia
    /// A relay characteristic of the link that went away, while the settle timer tells a link
    /// going down from a relay service gone.
    var vanishedCharacteristic: CharacteristicID?
    /// Connecting by itself: start-up, `--reconnect`, resume (see `CentralSession+Connect`).
    var automatic = AutomaticConnection()
    /// Until when (loop time) the `connect` command dials again a peripheral that did not take
    /// the connection in time (see `CentralSession+Connect`'s `dialAgain`).
    var connectUntil: Double?
    /// The commands waiting for something (the link, a scan, a read, a message's `sent`, ...).
    var commands = PendingCommands<CentralWait>()
    /// The program is quitting: the link's end ends every transfer.
    var isQuitting = false
    /// Counters and version-1 messages written, one value at a time (see `CentralSession+Transfer`).
    var writing = CentralWriting()
    /// Counters and messages the peripheral notifies.
    var receiving: CentralReceiving
    /// The `read` command in progress.
    var reading = CentralReading()
    /// Protocol version 2 with the peripheral (see `CentralSession+Delivery`).
    var delivery: CentralDelivery
    /// The UART link's lines and text (`linkService == .nus`; see `CentralSession+UART`).
    var uart = CentralUART()
    /// Secure mode: the pairing in progress (see `CentralSession+Pairing`).
    var pairing = CentralPairing()
    /// `--trace`: every value written or notified (nil: off).
    var trace: TraceReports?

    init(settings: CentralSettings) {
        self.settings = settings
        self.receiving = CentralReceiving(settings: settings)
        self.trace = settings.trace
        self.delivery = CentralDelivery(settings: settings.delivery)
        self.linkService = settings.uart ? .nus : .relay
        switch settings.startupTarget {
        case .address(let address)?: automatic.seek(.address(address), persistent: false)
        case .name(let name)?: automatic.seek(.name(name), persistent: false)
        case nil: break
        }
    }

    /// The peer of the link, if any.
    var peer: Peer? {
        switch link {
        case .idle: return nil
        case .connecting(let peer, _), .resolving(let peer), .subscribing(let peer, _), .ready(let peer, _),
            .disconnecting(let peer):
            return peer
        }
    }

    /// The ready link's characteristics and MTU, when ready.
    var readyLink: RelayLink? {
        if case .ready(_, let relay) = link { return relay }
        return nil
    }

    /// The characteristic notifications come from, on a link being subscribed or ready.
    var notifyCharacteristic: CharacteristicID? {
        switch link {
        case .subscribing(_, let relay), .ready(_, let relay): return relay.dataNotify
        default: return nil
        }
    }

    /// Handles one input at loop time `now` and returns the actions to perform, in order.
    mutating func handle(_ input: CentralInput, at now: Double) -> [CentralAction] {
        self.now = max(self.now, now)
        guard trace != nil else { return handle(input) }
        let incoming = tracedCharacteristic(of: input)
        return traced(handle(input), after: input, incoming: incoming)
    }

    /// Handles one input and returns the actions to perform, in order.
    mutating func handle(_ input: CentralInput) -> [CentralAction] {
        switch input {
        case .program(let input): return handle(input)
        case .adapter(let state, let info): return adapterChanged(state, info)
        case .discoveryStarted: return discoveryStarted()
        case .discoveryFailed(let error): return discoveryFailed(error)
        case .deviceUpdated(let device): return deviceUpdated(device)
        case .deviceRemoved(let id): return deviceRemoved(id)
        case .connectFinished(let id, let error): return connectFinished(id, error)
        case .disconnectFinished(let id, let error): return disconnectFinished(id, error)
        case .characteristicsFound(let id, let characteristics): return characteristicsFound(id, characteristics)
        case .notifyStarted(let error): return notifyStarted(error)
        case .notifyAcquired: return notifyAcquired()
        case .notifyAcquireFailed: return notifyAcquireFailed()
        case .notifySocketClosed: return notifySocketClosed()
        case .writeAcquired(let mtu): return writeAcquired(mtu)
        case .writeAcquireFailed: return writeAcquireFailed()
        case .mtuRead(let mtu): return mtuRead(mtu)
        case .mtuChanged(let id, let mtu): return id == notifyCharacteristic ? mtuChanged(mtu) : []
        case .valueChanged(let id, let value): return valueChanged(id, value)
        case .notification(let value): return notified(value)
        case .sendFinished(let outcome): return sendFinished(outcome)
        case .carrierWritable(let carrier): return carrierWritable(carrier)
        case .writeSocketClosed: return writeSocketClosed()
        case .readFinished(let role, let result): return readFinished(role, result)
        case .relayCharacteristicRemoved(let id): return relayCharacteristicRemoved(id)
        case .passkeyRequested(let id): return passkeyRequested(id)
        case .pairingCancelled: return pairingCancelled()
        case .pairFinished(let id, let error): return pairFinished(id, error)
        case .unpairFinished(let id, let error): return unpairFinished(id, error)
        case .lanePSMRead(let result): return lanePSMRead(result)
        case .laneOpened(let mtu): return laneOpened(mtu)
        case .laneOpenFailed(let end): return laneOpenFailed(end)
        case .laneReceived(let bytes): return laneReceived(bytes)
        case .laneClosed: return laneClosed()
        }
    }

    /// Handles what every program hears: commands, timers, the deadline, saves, quitting.
    private mutating func handle(_ input: ProgramInput<CentralCommand, CentralTimer>) -> [CentralAction] {
        switch input {
        case .command(let command, let token): return handle(command, token: token)
        case .timerFired(.scan): return scanTimedOut()
        case .timerFired(.reconnect): return tryAutoConnect()
        case .timerFired(.settle): return settleTimedOut()
        case .tick: return deadlineReached()
        case .saved(let receipt): return saved(receipt)
        case .quitting: return quitting()
        }
    }

    // MARK: Adapter

    private mutating func adapterChanged(_ newState: AdapterState, _ info: AdapterInfo?) -> [CentralAction] {
        if let info { adapterInfo = info }
        guard newState != adapter else { return [] }
        let wasOn = adapter == .poweredOn
        adapter = newState
        var actions: [CentralAction] = [.report(.state(newState, adapter: adapterInfo))]
        if newState == .poweredOn {
            if scanning.resumeListing, automatic.target == nil {
                scanning.resumeListing = false
                actions += beginScan(.listing)
            } else {
                actions += tryAutoConnect()
            }
        } else if wasOn || link != .idle || scanning.state != .idle {
            actions += adapterLost(newState)
        }
        return actions
    }

    /// The adapter went off or away: the scan and the link end; both resume when it is back.
    private mutating func adapterLost(_ state: AdapterState) -> [CentralAction] {
        let reason = CentralProblem.adapter(state).description
        var actions: [CentralAction] = []
        if let purpose = scanning.state.purpose {
            if purpose == .listing { scanning.resumeListing = true }
            scanning.stop()
            actions += [
                .cancelTimer(.scan), .report(.scanStopped(reason: .adapterLost, found: scanning.candidates.count)),
            ]
            actions += commands.finish(.scan, .adapter(state))
        }
        if case .disconnecting = link {
            // We were leaving anyway: no resume.
            actions += linkLost(reason: "disconnected (\(reason))")
        } else if let peer {
            automatic.seek(.address(peer.address), persistent: true)
            actions += linkLost(reason: reason)
        }
        actions.append(.cancelTimer(.reconnect))
        return actions
    }
}
