#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import RelayProtocol
import Shared

/// Performs the session's actions against bluetoothd (through `BlueZClient`) on the one
/// `EventLoop`, and feeds what BlueZ reports back into the session.
final class CentralDriver {
    let loop: EventLoop
    let console: Console
    let options: CentralOptions
    private(set) var session: CentralSession
    private var client: BlueZClient?
    private var adapterPath: ObjectPath?
    private var writeLink: AcquiredLink?
    /// The `AcquireNotify` socket, read on its own thread (`--notify-path socket`).
    private var notifySocket: NotificationSocket?
    /// A socket value that met a full socket: sent again once it is writable.
    private var blockedValue: [UInt8]?
    private var scanTimer: EventLoop.Token?
    private var reconnectTimer: EventLoop.Token?
    private var refreshTimer: EventLoop.Token?
    private var settleTimer: EventLoop.Token?
    private var commands: [CommandToken: CommandContext] = [:]
    private var nextToken: CommandToken = 1
    private var inputs: [CentralInput] = []
    private var processing = false
    /// Notify-characteristic values seen while a read of it is pending (the read updates `Value` too).
    private var valuesDuringRead: [[UInt8]]?
    private var idleWaiters: [() -> Void] = []
    /// Called after every change of the session (the prompt shows its state).
    var onChange: (() -> Void)?

    init(options: CentralOptions, loop: EventLoop, console: Console) {
        self.options = options
        self.loop = loop
        self.console = console
        self.session = CentralSession(settings: CentralSettings(options: options))
    }

    /// Connects to the bus (the system bus unless a test says otherwise) and starts following bluetoothd.
    func start(bus: DBusConnection.Bus = .system) {
        do {
            let connection = try DBusConnection(bus: bus, loop: loop)
            let client = BlueZClient(connection: connection)
            client.onEvent = { [weak self] event in self?.handle(event) }
            self.client = client
            client.start()
            loop.schedule(after: 3) { [weak self] in
                guard let self, let client = self.client, client.owner == nil else { return }
                self.feed(.adapter(.bluetoothdStopped))
            }
        } catch {
            let text = "\(error)"
            if text.contains("AccessDenied") || text.contains("ermission") {
                feed(.adapter(.notPermitted(reason: "the system bus refused us (\(text)): run as root or join the bluetooth group")))
            } else {
                feed(.adapter(.absent(reason: "cannot reach the system D-Bus (\(text)): is dbus running?")))
            }
        }
    }

    // MARK: Commands

    /// Runs one of the program's commands from the REPL.
    func run(_ context: CommandContext) throws -> CommandOutcome {
        let command: CentralCommand
        switch context.name {
        case "send": command = .send(text: context.arguments.first ?? "")
        case "send-file": command = .sendFile(path: context.arguments.first ?? "")
        default:
            guard let parsed = try CentralCommand.parse(context.line) else { return .success }
            command = parsed
        }
        let sessionCommand: SessionCommand
        switch command {
        case .scan: sessionCommand = .scan
        case .scanStop: sessionCommand = .scanStop
        case .list: sessionCommand = .list
        case .connect(let target): sessionCommand = .connect(target)
        case .disconnect: sessionCommand = .disconnect
        case .write(let value): sessionCommand = .write(value: value)
        case .send(let text): sessionCommand = .send(Message(text: text))
        case .sendFile(let path): sessionCommand = .send(Message(binary: try FileBytes.read(path)))
        case .read: sessionCommand = .read
        case .status: sessionCommand = .status
        }
        let token = nextToken
        nextToken += 1
        commands[token] = context
        context.onCancel { [weak self] in self?.commands[token] = nil }
        feed(.command(sessionCommand, token: token))
        return .pending
    }

    /// Calls `done` once nothing is left to send.
    func whenIdle(_ done: @escaping () -> Void) {
        if session.isQuiescent { return done() }
        idleWaiters.append(done)
    }

    /// Disconnects (if connected) and stops discovery, then calls `done`.
    func shutdown(_ done: @escaping () -> Void) {
        writeLink?.close()
        writeLink = nil
        notifySocket?.close()
        notifySocket = nil
        let peer = session.peer
        // The session stops scanning and reconnecting: the disconnection below is not a loss.
        feed(.quitting)
        guard let client, let peer else { return done() }
        client.disconnect(device: path(peer.id)) { _ in done() }
    }

    // MARK: Session

    /// Feeds an input; inputs produced while handling one are queued (no recursion).
    func feed(_ input: CentralInput) {
        inputs.append(input)
        guard !processing else { return }
        processing = true
        var index = 0
        while index < inputs.count {
            let next = inputs[index]
            index += 1
            for action in session.handle(next) { perform(action) }
            if index > 256 {
                inputs.removeFirst(index)
                index = 0
            }
        }
        inputs.removeAll()
        processing = false
        if session.isQuiescent, !idleWaiters.isEmpty {
            let waiters = idleWaiters
            idleWaiters.removeAll()
            for waiter in waiters { waiter() }
        }
        onChange?()
    }

    private func perform(_ action: CentralAction) {
        switch action {
        case .report(let event): console.report(event)
        case .startDiscovery: startDiscovery()
        case .stopDiscovery:
            cancelRefreshTimer()
            if let client, let adapterPath { client.stopDiscovery(adapter: adapterPath) { _ in } }
        case .restartDiscovery:
            guard let client, let adapterPath else { return feed(.discoveryFailed(BlueZError(.gone, "no adapter"))) }
            client.stopDiscovery(adapter: adapterPath) { [weak self] _ in self?.startDiscovery() }
        case .startRefreshTimer(let seconds):
            cancelRefreshTimer()
            refreshTimer = loop.schedule(after: seconds) { [weak self] in
                self?.refreshTimer = nil
                self?.feed(.refreshTimerFired)
            }
        case .startScanTimer(let seconds):
            if let scanTimer { loop.cancel(scanTimer) }
            scanTimer = loop.schedule(after: seconds) { [weak self] in
                self?.scanTimer = nil
                self?.feed(.scanTimerFired)
            }
        case .cancelScanTimer:
            cancelRefreshTimer()
            if let scanTimer { loop.cancel(scanTimer) }
            scanTimer = nil
        case .connect(let id):
            guard let client else { return feed(.connectFinished(id, BlueZError(.gone, "bluetoothd is not running"))) }
            client.connect(device: path(id), timeout: session.settings.connectTimeout) { [weak self] result in
                self?.feed(.connectFinished(id, result.failure))
            }
        case .disconnect(let id):
            guard let client else { return feed(.disconnectFinished(id, nil)) }
            client.disconnect(device: path(id)) { [weak self] result in
                self?.feed(.disconnectFinished(id, result.failure))
            }
        case .findCharacteristics(let id): feed(.characteristicsFound(id, characteristics(of: id)))
        case .startNotify(let id):
            guard let client else { return }
            client.startNotify(characteristic: path(id)) { [weak self] result in
                self?.feed(.notifyStarted(result.failure))
            }
        case .acquireWrite(let id): acquireWrite(id)
        case .acquireNotify(let id): acquireNotify(id)
        case .readMTU(let id):
            let mtu = client?.tree.characteristic(at: path(id))?.mtu.map { MTU(clamping: Int($0.rawValue)) }
            feed(.mtuRead(mtu))
        case .write(let value, let via, let id): write(value, via: via, to: id)
        case .releaseSockets:
            writeLink?.close()
            writeLink = nil
            blockedValue = nil
            notifySocket?.close()
            notifySocket = nil
        case .readValue(let role, let id):
            guard let client else { return feed(.readFinished(role, .failure(BlueZError(.gone, "bluetoothd is not running")))) }
            // Through the socket, notifications never change `Value`: only the read does.
            if role == .notify, notifySocket == nil { valuesDuringRead = [] }
            client.readValue(characteristic: path(id)) { [weak self] result in
                self?.readDone(role, result)
            }
        case .startReconnectTimer(let seconds):
            if let reconnectTimer { loop.cancel(reconnectTimer) }
            reconnectTimer = loop.schedule(after: seconds) { [weak self] in
                self?.reconnectTimer = nil
                self?.feed(.reconnectTimerFired)
            }
        case .cancelReconnectTimer:
            if let reconnectTimer { loop.cancel(reconnectTimer) }
            reconnectTimer = nil
        case .startSettleTimer(let seconds):
            if let settleTimer { loop.cancel(settleTimer) }
            settleTimer = loop.schedule(after: seconds) { [weak self] in
                self?.settleTimer = nil
                self?.feed(.settleTimerFired)
            }
        case .cancelSettleTimer:
            if let settleTimer { loop.cancel(settleTimer) }
            settleTimer = nil
        case .save(let bytes, let path):
            if let problem = FileBytes.write(bytes, to: path) { console.report(CentralEvent.error(problem)) }
        case .finish(let token, let outcome):
            guard let context = commands.removeValue(forKey: token) else { return }
            switch outcome {
            case .failure(let message): context.fail(message)
            default: context.succeed()
            }
        }
    }

    private func cancelRefreshTimer() {
        if let refreshTimer { loop.cancel(refreshTimer) }
        refreshTimer = nil
    }

    private func path(_ id: DeviceID) -> ObjectPath { ObjectPath(validating: id.path) ?? .root }
    private func path(_ id: CharacteristicID) -> ObjectPath { ObjectPath(validating: id.path) ?? .root }

    private func startDiscovery() {
        guard let client, let adapterPath else {
            return feed(.discoveryFailed(BlueZError(.gone, "no adapter")))
        }
        let filter = DiscoveryFilter(uuids: [RelayProfile.service], transport: .le)
        client.setDiscoveryFilter(filter, adapter: adapterPath) { [weak self] result in
            if let error = result.failure { return self?.feed(.discoveryFailed(error)) ?? () }
            client.startDiscovery(adapter: adapterPath) { [weak self] result in
                guard let self else { return }
                if let error = result.failure { return self.feed(.discoveryFailed(error)) }
                self.feed(.discoveryStarted)
                // Devices bluetoothd already knows and that advertise again only change RSSI.
                for device in client.tree.devices(on: adapterPath) { self.feed(.deviceUpdated(DeviceInfo(device))) }
            }
        }
    }

    private func characteristics(of device: DeviceID) -> [RemoteCharacteristic] {
        guard let client else { return [] }
        var found: [RemoteCharacteristic] = []
        for service in client.tree.services(of: path(device)) {
            for characteristic in client.tree.characteristics(of: service.path) {
                found.append(RemoteCharacteristic(
                    id: CharacteristicID(characteristic.path.rawValue), uuid: characteristic.uuid,
                    serviceUUID: service.uuid, flags: characteristic.flags))
            }
        }
        return found
    }

    private func acquireWrite(_ id: CharacteristicID) {
        guard let client else { return feed(.writeAcquireFailed(BlueZError(.gone, "bluetoothd is not running"))) }
        client.acquireWrite(characteristic: path(id)) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let link):
                self.writeLink?.close()
                self.writeLink = link
                link.onEvent = { [weak self, weak link] event in
                    guard let self, let link, self.writeLink === link else { return }
                    self.socketEvent(event)
                }
                self.feed(.writeAcquired(MTU(clamping: Int(link.mtu.rawValue))))
            case .failure(let error):
                self.feed(.writeAcquireFailed(error))
            }
        }
    }

    /// `AcquireNotify` when the characteristic offers it (`NotifyAcquired` present); the socket is
    /// handed to a `NotificationSocket` so that it is read even while the loop is busy.
    private func acquireNotify(_ id: CharacteristicID) {
        guard let client else { return feed(.notifyAcquireFailed(BlueZError(.gone, "bluetoothd is not running"))) }
        guard client.tree.characteristic(at: path(id))?.notifyAcquired != nil else {
            return feed(.notifyAcquireFailed(BlueZError(.notSupported, "no NotifyAcquired property")))
        }
        client.acquireNotify(characteristic: path(id)) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let link):
                let socket: NotificationSocket
                do {
                    socket = try NotificationSocket(taking: link, loop: self.loop)
                } catch {
                    link.close()
                    return self.feed(.notifyAcquireFailed(BlueZError(.failed, "notification reader: \(error)")))
                }
                self.notifySocket?.close()
                self.notifySocket = socket
                socket.onEvent = { [weak self, weak socket] event in
                    guard let self, let socket, self.notifySocket === socket else { return }
                    self.notifySocketEvent(event)
                }
                self.feed(.notifyAcquired)
            case .failure(let error):
                self.feed(.notifyAcquireFailed(error))
            }
        }
    }

    private func notifySocketEvent(_ event: AcquiredLink.Event) {
        switch event {
        case .received(let value):
            feed(.notification(value, at: loop.now))
        case .writable: break
        case .closed:
            notifySocket = nil
            feed(.notifySocketClosed)
        }
    }

    private func write(_ value: [UInt8], via: WritePath, to id: CharacteristicID) {
        switch via {
        case .socket:
            guard let link = writeLink else {
                return feed(.writeFinished(BlueZError(.notConnected, "the write socket is closed")))
            }
            switch link.send(value) {
            case .sent: feed(.writeFinished(nil))
            case .wouldBlock: blockedValue = value
            case .failed(let code):
                feed(.writeFinished(BlueZError(.failed, "write socket: \(String(cString: strerror(code)))")))
            }
        case .writeValue:
            guard let client else { return feed(.writeFinished(BlueZError(.gone, "bluetoothd is not running"))) }
            client.writeValue(value, characteristic: path(id), type: .command) { [weak self] result in
                self?.feed(.writeFinished(result.failure))
            }
        }
    }

    private func socketEvent(_ event: AcquiredLink.Event) {
        switch event {
        case .received: break
        case .writable:
            guard let value = blockedValue, let link = writeLink else { return }
            switch link.send(value) {
            case .sent:
                blockedValue = nil
                feed(.writeFinished(nil))
            case .wouldBlock: break
            case .failed(let code):
                blockedValue = nil
                feed(.writeFinished(BlueZError(.failed, "write socket: \(String(cString: strerror(code)))")))
            }
        case .closed:
            writeLink = nil
            if blockedValue != nil {
                blockedValue = nil
                feed(.writeFinished(BlueZError(.notConnected, "the write socket closed")))
            }
            feed(.writeSocketClosed)
        }
    }

    private func readDone(_ role: CharacteristicRole, _ result: Result<[UInt8], BlueZError>) {
        var held: [[UInt8]] = []
        if role == .notify, let seen = valuesDuringRead {
            held = seen
            valuesDuringRead = nil
            // Reading updates `Value` too: that change is the read, not a notification.
            if case .success(let value) = result, let echo = held.firstIndex(of: value) { held.remove(at: echo) }
        }
        feed(.readFinished(role, result))
        for value in held { feed(.notification(value, at: loop.now)) }
    }

    // MARK: BlueZ events

    private func handle(_ event: BlueZEvent) {
        switch event {
        case .serviceAppeared: break
        case .serviceVanished:
            adapterPath = nil
            feed(.adapter(.bluetoothdStopped))
        case .objectsLoaded: selectAdapter()
        case .adapter: selectAdapter()
        case .device(.added(let device)), .device(.changed(let device, _)):
            guard device.adapter == adapterPath else { return }
            feed(.deviceUpdated(DeviceInfo(device)))
        case .device(.removed(let path, _)):
            feed(.deviceRemoved(DeviceID(path.rawValue)))
        case .device(.disconnected): break
        case .gatt(.valueChanged(let characteristic, let value)):
            guard characteristic.path.rawValue == session.notifyCharacteristic?.path else { return }
            // With the AcquireNotify socket, a `Value` change is a read's echo, not a notification.
            guard notifySocket == nil else { return }
            if valuesDuringRead != nil {
                valuesDuringRead?.append(value)
            } else {
                feed(.notification(value, at: loop.now))
            }
        case .gatt(.characteristicChanged(let characteristic, let changed)):
            guard changed.contains("MTU"), let mtu = characteristic.mtu,
                characteristic.path.rawValue == session.notifyCharacteristic?.path
            else { return }
            feed(.mtuChanged(MTU(clamping: Int(mtu.rawValue))))
        case .gatt(.characteristicRemoved(let path)):
            // While bluetoothd goes away every object is removed: that is reported as such.
            guard client?.owner != nil else { return }
            feed(.relayCharacteristicRemoved(CharacteristicID(path.rawValue)))
        case .gatt: break
        case .problem(let error):
            if error.kind == .accessDenied { feed(.adapter(.notPermitted(reason: error.hint))) }
        }
    }

    private func selectAdapter() {
        guard let client, client.isAvailable else { return }
        let adapters = client.tree.adapters.sorted { $0.path < $1.path }
        let chosen = options.adapter.map { choice in adapters.first { $0.matches(choice.description) } }
            ?? adapters.first
        guard let chosen else {
            adapterPath = nil
            let names = adapters.map(\.name).joined(separator: ", ")
            let reason = options.adapter.map { "no adapter \($0) (bluetoothd has: \(names.isEmpty ? "none" : names))" }
                ?? "bluetoothd has no adapter (plug one in; check rfkill and btmgmt info)"
            return feed(.adapter(.absent(reason: reason)))
        }
        adapterPath = chosen.path
        feed(.adapter(.present(AdapterInfo(name: chosen.name, address: chosen.address), powered: chosen.powered)))
    }
}

extension DeviceInfo {
    /// The session's view of a BlueZ device snapshot.
    init(_ device: DeviceSnapshot) {
        self.init(
            id: DeviceID(device.path.rawValue), address: device.address, name: device.name,
            rssi: device.rssi.map(Int.init), serviceUUIDs: device.uuids, connected: device.connected,
            servicesResolved: device.servicesResolved)
    }
}

extension Result {
    /// The error of a failed result, nil on success.
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
