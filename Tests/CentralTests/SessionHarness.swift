import RelayApp
import RelayBlueZ
import RelayEndpoint
import RelayProtocol
import RelayREPL
import XCTest

@testable import relay_central

/// Drives a `CentralSession` the way the BlueZ driver would, without D-Bus.
struct SessionHarness {
    var session: CentralSession
    var nextToken: CommandToken = 1
    /// Every action returned so far, in order.
    var log: [CentralAction] = []

    static let adapter = AdapterInfo(name: "hci1", address: BluetoothAddress("00:AA:01:01:00:01"))
    static let peerAddress = BluetoothAddress("00:AA:01:00:00:00")!
    static let peerID = DeviceID(path: "/org/bluez/hci1/dev_00_AA_01_00_00_00")!
    static let writeID = CharacteristicID(path: "/org/bluez/hci1/dev_00_AA_01_00_00_00/service0001/char0002")!
    static let notifyID = CharacteristicID(path: "/org/bluez/hci1/dev_00_AA_01_00_00_00/service0001/char0004")!

    init(settings: CentralSettings = CentralSettings()) {
        session = CentralSession(settings: settings)
    }

    /// The loop time inputs are fed at (seconds).
    var now = 0.0

    @discardableResult
    mutating func feed(_ input: CentralInput) -> [CentralAction] {
        let actions = session.handle(input, at: now)
        log += actions
        return actions
    }

    /// Feeds `input` at loop time `time` (later inputs keep that time).
    @discardableResult
    mutating func feed(_ input: CentralInput, at time: Double) -> [CentralAction] {
        now = time
        return feed(input)
    }

    /// Feeds a command and returns its token and the immediate actions.
    @discardableResult
    mutating func command(_ command: CentralCommand) -> (token: CommandToken, actions: [CentralAction]) {
        let token = nextToken
        nextToken = token.next
        return (token, feed(.command(command, token: token)))
    }

    mutating func powerOn() {
        feed(.adapter(.poweredOn, Self.adapter))
    }

    static func device(
        _ address: BluetoothAddress = peerAddress, id: DeviceID? = nil, name: String? = "sample", rssi: Int? = -50,
        relay: Bool = true, connected: Bool = false, resolved: Bool = false
    ) -> DeviceInfo {
        DeviceInfo(
            id: id ?? DeviceID(path: "/org/bluez/hci1/dev_" + address.pathComponent)!, address: address, name: name,
            rssi: rssi, serviceUUIDs: relay ? [RelayProfile.service] : [], connected: connected,
            servicesResolved: resolved)
    }

    static let relayCharacteristics = [
        RemoteCharacteristic(
            id: writeID, uuid: RelayProfile.writeCharacteristic, serviceUUID: RelayProfile.service,
            flags: [.read, .writeWithoutResponse]),
        RemoteCharacteristic(
            id: notifyID, uuid: RelayProfile.notifyCharacteristic, serviceUUID: RelayProfile.service,
            flags: [.read, .notify]),
    ]

    /// Scans and finds the peripheral as candidate 0.
    mutating func scanAndFind() {
        powerOn()
        command(.scan)
        feed(.discoveryStarted)
        feed(.deviceUpdated(Self.device()))
    }

    /// Goes all the way to `ready` with the given MTU over the AcquireWrite socket.
    mutating func connectReady(mtu: Int = 517) {
        scanAndFind()
        command(.connect(.index(0)))
        establish(mtu: mtu)
    }

    /// From `connect` issued to `ready`.
    mutating func establish(mtu: Int = 517, id: DeviceID = SessionHarness.peerID) {
        feed(.connectFinished(id, nil))
        feed(.deviceUpdated(Self.device(id: id, connected: true, resolved: true)))
        feed(.characteristicsFound(id, Self.relayCharacteristics))
        feed(session.settings.notifyPath == .socket ? .notifyAcquired : .notifyStarted(nil))
        feed(.writeAcquired(MTU(mtu)!))
    }

    /// bluetoothd answers the `Disconnect` of a connected peer, then `Connected` turns false (the
    /// order BlueZ uses); returns the actions of the second step, after checking that the answer
    /// alone only waits.
    mutating func disconnectAnsweredThenDown(id: DeviceID = SessionHarness.peerID) -> [CentralAction] {
        let answered = feed(.disconnectFinished(id, nil))
        XCTAssertEqual(
            answered, [.startTimer(.settle, after: session.settings.disconnectSettle)],
            "the answer alone waits for Connected to turn false")
        return feed(.deviceUpdated(Self.device(id: id, connected: false)))
    }

    /// The events among `actions` (a message handed over counts as its `message` event).
    static func events(_ actions: [CentralAction]) -> [CentralEvent] {
        actions.compactMap {
            switch $0 {
            case .program(.report(let event)): return event
            case .program(.deliver(let arrival)): return .transfer(.message(arrival.report))
            default: return nil
            }
        }
    }

    static func eventNames(_ actions: [CentralAction]) -> [String] { events(actions).map(\.name) }

    /// The outcome of `token` among `actions`, if it finished there.
    static func outcome(of token: CommandToken, in actions: [CentralAction]) -> CommandOutcome? {
        for action in actions {
            if case .program(.finish(let finished, let problem)) = action, finished == token {
                return problem.map { .failure($0.description) } ?? .success
            }
        }
        return nil
    }

    /// The values written to a characteristic among `actions`.
    static func writes(_ actions: [CentralAction]) -> [[UInt8]] {
        actions.compactMap { if case .send(let value, .gatt) = $0 { return value } else { return nil } }
    }

    /// Acknowledges writes one at a time until nothing more is written; returns every value written.
    mutating func drainWrites(startingWith first: [CentralAction]) -> [[UInt8]] {
        var pending = Self.writes(first)
        var all: [[UInt8]] = []
        while !pending.isEmpty {
            XCTAssertEqual(pending.count, 1, "one value in flight at a time")
            all += pending
            pending = Self.writes(feed(.sendFinished(.sent)))
        }
        return all
    }
}

extension SessionHarness {
    /// The peripheral as events name it.
    static let peerName = PeerName(.peripheral, peerAddress)

    /// The `counter` event of `value` notified by the peripheral.
    static func counterEvent(_ value: UInt32) -> CentralEvent {
        .transfer(.counter(from: peerName, Counter(value)))
    }
}

extension CentralEvent {
    /// The message report, for `message` events.
    var messageReport: ReceivedMessageReport? {
        if case .transfer(.message(let report)) = self { return report }
        return nil
    }

    /// What was dropped and why, for `dropped` events.
    var drop: (partial: PartialMessageReport, reason: DropReason)? {
        if case .transfer(.dropped(_, let partial, let reason)) = self { return (partial, reason) }
        return nil
    }

    /// The message sent, for `sent` events.
    var sentMessage: OutgoingMessage? {
        if case .transfer(.sent(let message)) = self { return message }
        return nil
    }
}

extension CentralAction {
    /// Discovery filtered on the relay service (what every scan for relay peripherals starts).
    static let startRelayDiscovery = CentralAction.startDiscovery(services: [RelayProfile.service])
}
