/// Tracks the current owner (unique name) of a well-known bus name such as `org.bluez`.
///
/// It subscribes to `NameOwnerChanged` first and then asks `GetNameOwner`, so no change is
/// missed; an answer older than a change already seen is ignored. `onChange` runs on every
/// state change, including the first resolution. The watcher stops when released.
public final class NameOwnerWatcher {
    /// The state of the name.
    public enum State: Sendable, Equatable {
        /// Not resolved yet.
        case unknown
        /// Owned by this unique name.
        case owned(by: String)
        /// Nobody owns the name.
        case unowned
    }

    /// The watched well-known name.
    public let name: String
    /// The current state.
    public private(set) var state: State = .unknown
    private var subscription: SignalSubscription?
    private var lookup: DBusPendingCall?
    private var onChange: ((State) -> Void)?

    /// Starts watching `name` on `connection` (which must outlive the watcher to keep it working).
    public init(connection: DBusConnection, name: String, onChange: ((State) -> Void)? = nil) {
        self.name = name
        self.onChange = onChange
        subscription = connection.subscribe(
            MatchRule(
                sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "NameOwnerChanged", arg0: name)
        ) { [weak self] signal in
            self?.handleOwnerChanged(signal)
        }
        lookup = connection.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            method: "GetNameOwner", arguments: [.string(name)]
        ) { [weak self] result in
            guard let self else { return }
            self.lookup = nil
            switch result {
            case .success(let values):
                if let owner = values.first?.asString { self.update(.owned(by: owner)) }
            case .failure(.remote(let error)) where error.name == DBusRemoteError.Names.nameHasNoOwner:
                self.update(.unowned)
            case .failure:
                self.update(.unowned)
            }
        }
    }

    /// The current owner's unique name, if any.
    public var owner: String? {
        if case .owned(let owner) = state { return owner }
        return nil
    }

    /// Whether the state is known (the first answer or change arrived).
    public var isResolved: Bool { state != .unknown }

    /// Stops watching.
    public func cancel() {
        subscription?.cancel()
        subscription = nil
        lookup?.cancel()
        lookup = nil
        onChange = nil
    }

    private func handleOwnerChanged(_ signal: DBusSignal) {
        guard signal.arguments.count == 3, signal.arguments[0].asString == name,
            let newOwner = signal.arguments[2].asString
        else { return }
        // A change supersedes any outstanding GetNameOwner answer.
        lookup?.cancel()
        lookup = nil
        update(newOwner.isEmpty ? .unowned : .owned(by: newOwner))
    }

    private func update(_ newState: State) {
        guard newState != state else { return }
        state = newState
        onChange?(newState)
    }
}

extension DBusConnection {
    /// Starts (or shares) owner tracking of `name`, used for signal routing and access control.
    func retainOwnerTracking(of name: String) {
        ownerTrackingCounts[name, default: 0] += 1
        if ownerTrackers[name] == nil {
            ownerTrackers[name] = NameOwnerWatcher(connection: self, name: name) { [weak self] _ in
                self?.ownerTrackingChanged(name)
            }
        }
    }

    func releaseOwnerTracking(of name: String) {
        guard let count = ownerTrackingCounts[name] else { return }
        if count > 1 {
            ownerTrackingCounts[name] = count - 1
        } else {
            ownerTrackingCounts[name] = nil
            ownerTrackers.removeValue(forKey: name)?.cancel()
        }
    }

    /// Whether `name` is tracked but its owner is not known yet.
    func isOwnerPending(of name: String) -> Bool {
        ownerTrackers[name].map { !$0.isResolved } ?? false
    }

    /// The tracked owner of `name`, `nil` if unowned or not tracked/resolved.
    func trackedOwner(of name: String) -> String? {
        ownerTrackers[name]?.owner
    }
}
