import RelayApp
import RelayBlueZ
import RelayCLI
import RelayEndpoint
import RelayProtocol

/// The peripheral's state machine: what the user asked for (advertise or not), what bluetoothd
/// reported (adapter state, registrations, centrals, subscriptions, writes), and the paced queue
/// of notifications. It performs no I/O: every input returns the actions the driver performs.
struct PeripheralSession {
    let settings: PeripheralSettings
    /// The loop's time when the current input is handled (monotonic seconds).
    var now = 0.0
    private(set) var adapter: AdapterState = .unknown
    private(set) var adapterInfo: AdapterInfo?
    /// The GATT application and the advertisement (see `PeripheralSession+Lifecycle`).
    var registrations = PeripheralRegistrations()
    /// Connected centrals.
    var centrals: [BluetoothAddress: ConnectedCentral] = [:]
    /// Writes that came without a device option (never from bluetoothd itself).
    var anonymous: ConnectedCentral
    /// The identity addresses of connected centrals that bonded under another address.
    var identities: [BluetoothAddress: BluetoothAddress] = [:]
    /// Subscriptions as bluetoothd reports them for all centrals.
    var subscriptions = PeripheralSubscriptions()
    /// Counters and version-1 messages notified, one value at a time (see `PeripheralSession+Sending`).
    var sending = PeripheralSending()
    /// Complete messages received from every central (numbered for `--save-dir`).
    var arrivals: MessageArrivals
    var messagesReceived: Int { arrivals.count }
    /// Bus calls and values refused, and the pace of their reports (see `PeripheralSession+AllowList`).
    var refusals = PeripheralRefusals()
    /// Protocol version 2 with relay centrals (see `PeripheralSession+Delivery`).
    var delivery: PeripheralDelivery
    /// Phone UART apps on the Nordic UART Service (see `PeripheralSession+UART`).
    var uart = UARTPeers()
    /// `--secure`: passkeys shown, bonds made (see `PeripheralSession+Pairing`).
    var pairing = PeripheralPairing()
    /// `--trace`: every value written or notified (nil: off).
    var trace: TraceReports?
    /// The commands waiting for something: none (every command of relay-peripheral is done at
    /// once; see `PeripheralSession+Commands`), kept as on relay-central so both take them alike.
    var commands = PendingCommands<Never>()
    /// Centrals' L2CAP channels (see `PeripheralSession+Lanes`).
    var lanes = PeripheralLanes()
    /// Addresses two links answer to (see `PeripheralSession+Contests`).
    var contests = AddressContests()

    init(settings: PeripheralSettings = PeripheralSettings()) {
        self.settings = settings
        self.trace = settings.trace
        self.anonymous = ConnectedCentral(address: nil, maxMessage: settings.maxMessage)
        self.arrivals = MessageArrivals(saveDirectory: settings.saveDirectory)
        self.delivery = PeripheralDelivery(settings: settings.delivery)
    }

    var isPoweredOn: Bool { adapter == .poweredOn }
    /// Advertising as the user sees it: the advertisement and the service it names are both
    /// registered (`advertising` was reported). The two registrations are requested together
    /// and may complete in either order.
    var isAdvertising: Bool { registrations.isAdvertising }

    // MARK: Inputs

    mutating func handle(_ input: PeripheralInput) -> [PeripheralAction] {
        switch input {
        case .program(let input):
            return handle(input)
        case .adapter(let state, let info):
            return adapterChanged(to: state, info: info)
        case .applicationRegistered(let ticket):
            return applicationRegistered(ticket)
        case .applicationFailed(let ticket, let failure):
            return applicationFailed(ticket, failure)
        case .advertisementRegistered(let ticket):
            return advertisementRegistered(ticket)
        case .advertisementFailed(let ticket, let failure):
            return advertisementFailed(ticket, failure)
        case .advertisementReleased:
            return advertisementReleased()
        case .connected(let address):
            guard !contests.contains(address) else { return contestedReconnected(address) }
            let joined = ensureCentral(address)
            return joined + (joined.isEmpty ? [] : advertiseAgainAfterConnection())
        case .disconnected(let address):
            // When no link of its contest remains, its addresses are taken again (their centrals
            // resume their sessions with their next hello).
            contests.gone(address)
            return disconnect(address, reason: "disconnected") + pairingLeft(address)
                + advertiseAgainAfterDisconnection()
        case .identityResolved(let address, let identity):
            return identityResolved(address, identity: identity)
        case .pairing(let change):
            return pairingChanged(change)
        case .mtu(let address, let mtu):
            guard !contests.contains(address) else { return [] }
            return ensureCentral(address) + learnMTU(mtu, of: address)
        case .written(let bytes, let from, let mtu):
            guard !contests.contains(from) else { return [] }  // the contest was reported
            guard admitsWriter(from) else { return dropUnlisted(from) }
            return received(bytes, from: from, mtu: mtu)
        case .sessionWritten(let bytes, let from, let mtu):
            guard !contests.contains(from) else { return [] }  // the contest was reported
            guard admitsWriter(from) else { return dropUnlisted(from) }
            return sessionWritten(bytes, from: from, mtu: mtu)
        case .uartWritten(let bytes, let from, let mtu):
            guard !contests.contains(from) else { return [] }  // the contest was reported
            guard admitsWriter(from) else { return dropUnlisted(from) }
            return uartWritten(bytes, from: from, mtu: mtu)
        case .uartNotifyStarted(let from, let mtu):
            return uartNotifyStarted(from: contests.contains(from) ? nil : from, mtu: mtu)
        case .uartNotifyStopped:
            return uartNotifyStopped()
        case .sessionNotifyStarted(let mtu):
            subscriptions.sessionNotifyStarted(mtu: mtu)
            return []
        case .sessionNotifyStopped:
            subscriptions.sessionNotifyStopped()
            return sessionNotifyStopped()
        case .notifyStarted(let from, let mtu):
            return notifyStarted(from: contests.contains(from) ? nil : from, mtu: mtu)
        case .notifyStopped(let from):
            return notifyStopped(from: from)
        case .sendFinished(.notification, let outcome):
            return notifyFinished(outcome)
        case .sendFinished(.lane(let id), .took(let taken, let full, _)):
            return laneTook(id, taken: taken, full: full)
        case .sendFinished(.lane(let id), .failed):
            return laneFailed(id)
        case .carrierWritable(.notification):
            return writable()
        case .carrierWritable(.lane(let id)):
            return laneWritable(id)
        case .refusedCall(let call):
            guard case .allow(let suppressed) = refusals.refusedCall(at: now) else { return [] }
            return [.report(.error(.refusedCall(call, suppressed: suppressed), from: nil))]
        case .laneListening(let result):
            return laneListening(result)
        case .lanePSMRead(let address):
            guard let address, !contests.contains(address) else { return [] }
            return ensureCentral(address) + laneCharacteristicRead(by: address)
        case .laneOpened(let id, let address, let mtu, let connection):
            return laneOpened(id, from: address, mtu: mtu, connection: connection)
        case .laneReceived(let id, let bytes):
            return laneReceived(id, bytes)
        case .laneClosed(let id):
            return laneClosed(id)
        }
    }

    /// Handles what every program hears: commands, timers, the deadline, saves, quitting.
    private mutating func handle(_ input: ProgramInput<PeripheralCommand, PeripheralTimer>) -> [PeripheralAction] {
        switch input {
        case .command(let command, let token):
            return handle(command, token: token)
        case .timerFired(.sendPause):
            return pauseOver()
        case .tick:
            return dropStalledMessages(at: now) + closeStalledLanes() + deliveryTick() + uartIdleLines(at: now)
        case .saved(let receipt):
            return saved(receipt)
        case .quitting:
            return quit()
        }
    }

    /// Handles one input at loop time `now`.
    mutating func handle(_ input: PeripheralInput, at now: Double) -> [PeripheralAction] {
        self.now = max(self.now, now)
        guard trace != nil else { return handle(input) }
        let handedOver = sending.inFlight
        let actions = handle(input)
        return traceReports(for: input, handedOver: handedOver) + actions
    }

    mutating func setAdapter(_ state: AdapterState, info: AdapterInfo?) {
        adapter = state
        adapterInfo = info
    }
}
