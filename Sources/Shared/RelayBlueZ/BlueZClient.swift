import RelayDBus
import RelayRuntime

/// The client side of bluetoothd: its objects, kept current, and the calls on them.
///
/// `start()` subscribes to `InterfacesAdded`/`InterfacesRemoved`/`PropertiesChanged` first,
/// then tracks who owns `org.bluez`; each time an owner appears it reads `GetManagedObjects`,
/// so no change is missed. The first read is sent right behind the owner lookup, without
/// waiting for its answer (the bus answers in order, and any owner change in between arrives
/// as a signal before the read's reply), saving a round trip at start-up. When bluetoothd goes away every object is reported removed and
/// `.serviceVanished` follows (also once at start when nobody owns `org.bluez`); when it comes back `.serviceAppeared` and fresh `added` events
/// follow. Everything runs on the connection's `EventLoop`; every call completes through a
/// callback on that loop, exactly once.
public final class BlueZClient {
    /// The bus connection (also used by `GattApplication` and `LEAdvertisement`).
    public let connection: DBusConnection
    /// The current objects.
    public private(set) var tree = BlueZObjectTree()
    /// The unique name of bluetoothd, while it runs.
    public private(set) var owner: String?
    /// Whether the objects of the current owner have been loaded.
    public private(set) var isLoaded = false
    /// Receives every event, on the loop.
    public var onEvent: ((BlueZEvent) -> Void)?
    /// Default timeout of method calls, in seconds.
    public var callTimeout: Double = 25

    private var subscriptions: [SignalSubscription] = []
    /// The subscriptions of the objects followed (see `follow(adapter:)`).
    private var followedSubscriptions: [SignalSubscription] = []
    private var ownerWatcher: NameOwnerWatcher?
    private var loading: DBusPendingCall?
    /// The owner the outstanding `GetManagedObjects` counts for; `nil` while it was sent
    /// ahead of the owner lookup's answer.
    private var loadingOwner: String?
    private var ownerObservers: [Int: (String?) -> Void] = [:]
    /// Whether the owner lookup answered (or a change came) yet: a first answer of "nobody" is
    /// reported as `.serviceVanished`.
    private var ownerResolved = false
    /// See `onRefusedCall`.
    var refusedCallHandler: ((RefusedCall) -> Void)?
    private var nextObserver = 0

    /// A client on `connection`; nothing happens until `start()`.
    public init(connection: DBusConnection) {
        self.connection = connection
    }

    /// The loop everything runs on.
    public var loop: EventLoop { connection.loop }

    /// Whether bluetoothd is running and its objects are loaded.
    public var isAvailable: Bool { owner != nil && isLoaded }

    /// Subscribes, tracks `org.bluez` and loads its objects. Calling it twice does nothing.
    public func start() {
        guard ownerWatcher == nil else { return }
        let service = BlueZInterface.service
        subscriptions = [
            connection.subscribe(MatchRule(sender: service, interface: BlueZInterface.objectManager)) {
                [weak self] in self?.handleObjectManagerSignal($0)
            },
            connection.subscribe(
                MatchRule(
                    sender: service, interface: BlueZInterface.properties, member: "PropertiesChanged",
                    arg0: BlueZInterface.adapter)
            ) { [weak self] in self?.handlePropertiesChanged($0) },
        ]
        followedSubscriptions = subscribeBelow(followedNamespace)
        ownerWatcher = NameOwnerWatcher(connection: connection, name: service) { [weak self] state in
            self?.ownerChanged(state)
        }
        loadObjects(of: nil, attempt: 1)
    }

    /// Stops listening (objects stay as they were; no more events).
    public func stop() {
        subscriptions.forEach { $0.cancel() }
        subscriptions = []
        followedSubscriptions.forEach { $0.cancel() }
        followedSubscriptions = []
        ownerWatcher?.cancel()
        ownerWatcher = nil
        loading?.cancel()
        loading = nil
    }

    // MARK: The adapter followed

    /// Where property changes and disconnections are heard before an adapter is followed.
    private static let everything: ObjectPath = "/org/bluez"

    /// Hears property changes and disconnections only below `adapter` (`nil`: below every
    /// adapter), besides every adapter's own `Adapter1` properties, which are always heard.
    ///
    /// On one bluetoothd with many adapters (a laptop with two, the test bed's room of sixteen),
    /// the other adapters' devices change all the time (a notification to each of fifteen
    /// centrals is fifteen `Value` changes): a program that uses one adapter is not woken for
    /// them. The new rules are added before the old ones go, so nothing below the adapter is
    /// missed; when the followed adapter changes, the objects are read again, because what
    /// changed below the new one while it was not followed was not heard.
    public func follow(adapter: AdapterID?) {
        let namespace = adapter?.path ?? Self.everything
        guard namespace != followedNamespace else { return }
        let wasNarrowed = followedNamespace != Self.everything
        followedNamespace = namespace
        guard ownerWatcher != nil else { return }  // `start()` subscribes
        let old = followedSubscriptions
        followedSubscriptions = subscribeBelow(namespace)
        old.forEach { $0.cancel() }
        if wasNarrowed, let owner, isLoaded, loading == nil { loadObjects(of: owner, attempt: 1) }
    }

    /// The objects whose changes are heard (see `follow(adapter:)`).
    public private(set) var followedNamespace: ObjectPath = BlueZClient.everything

    private func subscribeBelow(_ namespace: ObjectPath) -> [SignalSubscription] {
        let service = BlueZInterface.service
        return [
            connection.subscribe(
                MatchRule(
                    sender: service, pathNamespace: namespace, interface: BlueZInterface.properties,
                    member: "PropertiesChanged")
            ) { [weak self] signal in
                // Adapter1's own changes come through the rule for every adapter.
                guard signal.arguments.first?.asString != BlueZInterface.adapter else { return }
                self?.handlePropertiesChanged(signal)
            },
            connection.subscribe(
                MatchRule(
                    sender: service, pathNamespace: namespace, interface: BlueZInterface.device,
                    member: "Disconnected")
            ) { [weak self] in self?.handleDeviceDisconnected($0) },
        ]
    }

    // MARK: Owner and objects

    private func ownerChanged(_ state: NameOwnerWatcher.State) {
        let firstAnswer = !ownerResolved
        ownerResolved = true
        if owner == nil, loading != nil, loadingOwner == nil, case .owned(let first) = state {
            // The first answer of the lookup: the read sent right behind it went to this owner.
            owner = first
            loadingOwner = first
            for (_, observer) in ownerObservers.sorted(by: { $0.key < $1.key }) { observer(first) }
            emit([.serviceAppeared(owner: first)])
            return
        }
        loading?.cancel()
        loading = nil
        loadingOwner = nil
        if owner != nil {
            owner = nil
            isLoaded = false
            emit(tree.clear())
            emit([.serviceVanished])
            for (_, observer) in ownerObservers.sorted(by: { $0.key < $1.key }) { observer(nil) }
        }
        guard case .owned(let newOwner) = state else {
            // Nobody owns org.bluez from the start: say so once, as when it goes away.
            if state == .unowned, firstAnswer { emit([.serviceVanished]) }
            return
        }
        owner = newOwner
        for (_, observer) in ownerObservers.sorted(by: { $0.key < $1.key }) { observer(newOwner) }
        emit([.serviceAppeared(owner: newOwner)])
        loadObjects(of: newOwner, attempt: 1)
    }

    /// Reads `GetManagedObjects` (`expectedOwner` nil: sent ahead of the owner lookup's answer,
    /// which then sets it). A fresh owner may take its name before exporting its object manager
    /// (bluezoo does), so failures are retried a few times while the owner stays.
    private func loadObjects(of expectedOwner: String?, attempt: Int) {
        loadingOwner = expectedOwner
        loading = connection.call(
            destination: BlueZInterface.service, path: .root, interface: BlueZInterface.objectManager,
            method: "GetManagedObjects", timeout: callTimeout, autoStart: false
        ) { [weak self] result in
            guard let self else { return }
            guard let expectedOwner = self.loadingOwner, self.owner == expectedOwner else {
                // Answered before the owner was known (not expected: the bus answers in order):
                // drop it; the owner's arrival reads again.
                self.loading = nil
                self.loadingOwner = nil
                return
            }
            self.loading = nil
            self.loadingOwner = nil
            switch result {
            case .success(let values):
                guard let managed = values.first?.asManagedObjects else {
                    self.emit([.problem(.shape("GetManagedObjects reply is not a{oa{sa{sv}}}"))])
                    return
                }
                self.isLoaded = true
                self.emit(self.tree.load(managed))
                self.emit([.objectsLoaded])
            case .failure(let error) where attempt < 10 && error != .timeout:
                self.loop.schedule(after: 0.05 * Double(attempt)) { [weak self] in
                    guard let self, self.owner == expectedOwner, !self.isLoaded else { return }
                    self.loadObjects(of: expectedOwner, attempt: attempt + 1)
                }
            case .failure(let error):
                self.emit([.problem(BlueZError(error))])
            }
        }
    }

    private func isFromOwner(_ signal: DBusSignal) -> Bool {
        owner != nil && signal.sender == owner
    }

    private func handleObjectManagerSignal(_ signal: DBusSignal) {
        guard isFromOwner(signal), let path = signal.arguments.first?.asObjectPath else { return }
        switch signal.member {
        case "InterfacesAdded":
            guard signal.arguments.count == 2, let interfaces = signal.arguments[1].asInterfaceMap else {
                return emit([.problem(.shape("InterfacesAdded is not (oa{sa{sv}})"))])
            }
            emit(tree.interfacesAdded(path, interfaces))
        case "InterfacesRemoved":
            guard signal.arguments.count == 2, let names = signal.arguments[1].asStrings else {
                return emit([.problem(.shape("InterfacesRemoved is not (oas)"))])
            }
            emit(tree.interfacesRemoved(path, names))
        default:
            break
        }
    }

    private func handlePropertiesChanged(_ signal: DBusSignal) {
        guard isFromOwner(signal), signal.arguments.count == 3, let interface = signal.arguments[0].asString,
            let changed = signal.arguments[1].asDictionary, let invalidated = signal.arguments[2].asStrings
        else { return }
        emit(tree.propertiesChanged(signal.path, interface: interface, changed: changed, invalidated: invalidated))
    }

    private func handleDeviceDisconnected(_ signal: DBusSignal) {
        guard isFromOwner(signal), signal.arguments.count == 2, let reason = signal.arguments[0].asString else {
            return
        }
        let message = signal.arguments[1].asString ?? ""
        emit([.device(.disconnected(DeviceID(signal.path), reason: reason, message: message))])
    }

    private func emit(_ events: [BlueZEvent]) {
        for event in events { onEvent?(event) }
    }

    /// Runs `handler` with the new owner of `org.bluez` (`nil` when it went away); for the
    /// model's own objects (registrations end when bluetoothd stops).
    func observeOwner(_ handler: @escaping (String?) -> Void) -> Int {
        nextObserver += 1
        ownerObservers[nextObserver] = handler
        return nextObserver
    }

    func removeOwnerObserver(_ id: Int) { ownerObservers[id] = nil }

    // MARK: Calls

    /// Calls a method on a bluetoothd object; `completion` gets the reply's arguments.
    public func call(
        _ path: ObjectPath, _ interface: String, _ method: String, _ arguments: [DBusValue] = [],
        timeout: Double? = nil, completion: @escaping (Result<[DBusValue], BlueZError>) -> Void
    ) {
        guard owner != nil else {
            loop.schedule(after: 0) {
                completion(
                    .failure(
                        BlueZError(
                            name: DBusRemoteError.Names.serviceUnknown,
                            message: "org.bluez is not on the bus")))
            }
            return
        }
        connection.call(
            destination: BlueZInterface.service, path: path, interface: interface, method: method,
            arguments: arguments, timeout: timeout ?? callTimeout
        ) { result in
            completion(result.mapError(BlueZError.init))
        }
    }

    /// Like `call`, for methods without a result.
    func callVoid(
        _ path: ObjectPath, _ interface: String, _ method: String, _ arguments: [DBusValue] = [],
        timeout: Double? = nil, completion: @escaping (Result<Void, BlueZError>) -> Void
    ) {
        call(path, interface, method, arguments, timeout: timeout) { completion($0.map { _ in () }) }
    }

    /// Sets one property (`org.freedesktop.DBus.Properties.Set`).
    public func setProperty(
        _ path: ObjectPath, _ interface: String, _ name: String, _ value: DBusValue,
        completion: @escaping (Result<Void, BlueZError>) -> Void
    ) {
        callVoid(
            path, BlueZInterface.properties, "Set", [.string(interface), .string(name), .variant(value)],
            completion: completion)
    }
}
