import RelayApp
import RelayBlueZ
import RelayEndpoint
import RelayProtocol
import RelayREPL

/// The settings of a session, taken from the command line.
struct CentralSettings: Equatable, Sendable {
    /// The advertised name of candidates; nil: any name (`--nus` without `--name`).
    var name: String? = "sample"
    /// `--nus`: links are to Nordic UART Service devices (`connect --nus` asks for one link).
    var uart = false
    /// `--nus-eol`: appended to the text sent to a UART device.
    var uartEnding = UARTLineEnding.lf
    var scanTimeout = CentralOptions.defaultScanTimeout
    var reconnect = false
    var maxMessage = CommonOptions.defaultMaxMessage
    var saveDirectory: String?
    var startupTarget: StartupTarget?
    /// `.writeValue`: never ask for the `AcquireWrite` socket.
    var writePath = WritePath.socket
    /// `.socket`: subscribe with `AcquireNotify` (falling back to `StartNotify`); `.signal`: `StartNotify` only.
    var notifyPath = NotifyPath.signal
    /// Protocol version 2: token, window, time-outs.
    var delivery = DeliverySettings()
    /// `--trace` (nil: off).
    var trace: TraceReports?
    /// Pause before a reconnect scan is retried after a failed attempt, in seconds.
    var retryDelay = 1.0
    /// How long a `Device1.Connect` may take before it is cancelled (seconds). Shorter than the
    /// kernel's own 40 s LE connection time-out, so the cancel comes from us, and is answered.
    var connectTimeout = 20.0
    /// After a `Disconnect` we asked for was answered, how long to wait for `Connected` to turn
    /// false before connecting again anyway (seconds).
    var disconnectSettle = 5.0
    /// After a relay characteristic vanished, how long to wait for `Connected` to turn false
    /// before taking it as the relay service gone under a live link (seconds).
    var vanishSettle = 1.0

    init() {}

    init(options: CentralOptions) {
        uart = options.uart
        name = options.name ?? (options.uart ? nil : "sample")
        uartEnding = options.common.uartEnding
        scanTimeout = options.scanTimeout
        reconnect = options.reconnect
        maxMessage = options.common.maxMessage
        saveDirectory = options.common.saveDirectory
        startupTarget = options.connect
        writePath = options.writePath
        notifyPath = options.common.notifyPath
        delivery = DeliverySettings(options: options.common)
        trace = options.common.traceReports
    }
}

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
    var connectToken: CommandToken?
    var disconnectToken: CommandToken?
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
        case .address(let address)?: automatic.target = .address(address)
        case .name(let name)?: automatic.target = .name(name)
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
        case .command(let command, let token): return handle(command, token: token)
        case .adapter(let state, let info): return adapterChanged(state, info)
        case .discoveryStarted: return discoveryStarted()
        case .discoveryFailed(let error): return discoveryFailed(error)
        case .scanTimerFired: return scanTimedOut()
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
        case .valueChanged(let id, let value, let time): return valueChanged(id, value, at: time)
        case .notification(let value, let time): return notified(value, at: time)
        case .writeFinished(let error): return writeFinished(error)
        case .writeBlocked(let value, let characteristic): return writeBlocked(value, to: characteristic)
        case .writeWritable: return writeWritable()
        case .writeSocketClosed: return writeSocketClosed()
        case .readFinished(let role, let result): return readFinished(role, result)
        case .reconnectTimerFired: return tryAutoConnect()
        case .settleTimerFired: return settleTimedOut()
        case .quitting: return quitting()
        case .relayCharacteristicRemoved(let id): return relayCharacteristicRemoved(id)
        case .tick(let now):
            self.now = max(self.now, now)
            return deadlineReached()
        case .saved(let receipt): return saved(receipt)
        case .passkeyRequested(let id): return passkeyRequested(id)
        case .pairingCancelled: return pairingCancelled()
        case .pairFinished(let id, let error): return pairFinished(id, error)
        case .unpairFinished(let id, let error): return unpairFinished(id, error)
        }
    }

    private mutating func handle(_ command: CentralCommand, token: CommandToken) -> [CentralAction] {
        switch command {
        case .scan: return startListing(token: token)
        case .scanStop: return stopScanCommand(token: token)
        case .list: return [.report(.list(scanning.candidates)), .finish(token, nil)]
        case .connect(let target): return connectCommand(target, service: settings.uart ? .nus : .relay, token: token)
        case .connectUART(let target): return connectCommand(target, service: .nus, token: token)
        case .disconnect: return disconnectCommand(token: token)
        case .write(let value): return writeCommand(value, token: token)
        case .send(let message): return sendCommand(message, token: token)
        case .read: return readCommand(token: token)
        case .status: return [.report(.status(status)), .finish(token, nil)]
        case .pair: return pairCommand(token: token)
        case .unpair: return unpairCommand(token: token)
        case .passkey(let passkey): return passkeyCommand(passkey, token: token)
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
            scanning.state = .idle
            actions += [
                .cancelScanTimer, .report(.scanStopped(reason: .adapterLost, found: scanning.candidates.count)),
            ]
            if let token = scanning.token {
                scanning.token = nil
                actions.append(.finish(token, .adapter(state)))
            }
        }
        if case .disconnecting = link {
            // We were leaving anyway: no resume.
            actions += linkLost(reason: "disconnected (\(reason))")
        } else if let peer {
            automatic.target = .address(peer.address)
            automatic.persistent = true
            actions += linkLost(reason: reason)
        }
        actions.append(.cancelReconnectTimer)
        return actions
    }

    // MARK: Commands that need the adapter

    /// Why a command cannot run now, or nil when the adapter is usable.
    var adapterProblem: CentralProblem? {
        adapter == .poweredOn ? nil : .adapter(adapter)
    }

    private mutating func writeCommand(_ value: UInt32?, token: CommandToken) -> [CentralAction] {
        guard let relay = readyLink else { return [.finish(token, notReady)] }
        guard relay.service == .relay else {
            return [.finish(token, .uartTextOnly(.counter))]
        }
        let counter = value.map(Counter.init) ?? writing.nextCounter
        writing.nextCounter = counter.next
        writing.outbox.append(counter: counter, tag: token)
        return pump()
    }

    private mutating func sendCommand(_ message: Message, token: CommandToken) -> [CentralAction] {
        guard let relay = readyLink else { return [.finish(token, notReady)] }
        if relay.service == .nus { return uartSendCommand(message, mtu: relay.mtu ?? .default, token: token) }
        guard message.length <= Int(UInt32.max) - 300 else {
            return [.finish(token, .messageTooLarge)]
        }
        let number = writing.nextMessageNumber
        writing.nextMessageNumber += 1
        switch delivery.phase {
        case .established: enqueue(message, number: number, token: token)
        case .greeting: delivery.waiting.append((number, message, token))
        case .idle, .fallback: writing.outbox.append(message, number: number, chunker: &writing.chunker, tag: token)
        }
        return pump()
    }

    private mutating func readCommand(token: CommandToken) -> [CentralAction] {
        guard let relay = readyLink else { return [.finish(token, notReady)] }
        guard relay.service == .relay else { return [.finish(token, .uartTextOnly(.read))] }
        guard reading.token == nil else {
            return [.finish(token, .readInProgress)]
        }
        reading.token = token
        reading.pending = 2
        reading.failures = []
        // Reading the characteristic notifications come from changes its `Value` too (signal path).
        reading.valuesDuringRead = relay.notifyVia == .socket || relay.session != nil ? nil : []
        return [.readValue(.write, relay.write), .readValue(.notify, relay.notify)]
    }

    /// Why a command that needs a ready link cannot run now.
    var notReady: CentralProblem {
        if let problem = adapterProblem { return problem }
        switch link {
        case .idle, .ready: return .notConnected
        case .connecting, .resolving, .subscribing: return .stillConnecting
        case .disconnecting: return .leavingLink
        }
    }
}
