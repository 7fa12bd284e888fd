internal import CDBus

/// A live signal subscription. The match is removed from the bus when `cancel()` is called
/// or this object is released: keep it for as long as you want the signals.
public final class SignalSubscription {
    private weak var connection: DBusConnection?
    let id: Int
    /// The rule this subscription was made with.
    public let rule: MatchRule

    init(connection: DBusConnection, id: Int, rule: MatchRule) {
        self.connection = connection
        self.id = id
        self.rule = rule
    }

    deinit { connection?.unsubscribe(id) }

    /// Stops delivery and removes the match rule from the bus.
    public func cancel() {
        connection?.unsubscribe(id)
        connection = nil
    }
}

/// The routing table of a connection's subscriptions.
struct SignalRoutes {
    struct Route {
        var rule: MatchRule
        var handler: (DBusSignal) -> Void
    }
    /// A signal that came while the owner of a route's well-known sender was not known yet,
    /// with the routes it waits for: decided once the owner is known, never delivered unchecked.
    struct Held {
        var signal: DBusSignal
        var routeIDs: [Int]
    }
    /// At most this many signals wait for an owner; beyond, newer ones are dropped (the owner
    /// lookup answers within a round trip of the bus: only a flood from another client fills it).
    static let maximumHeld = 256
    var routes: [Int: Route] = [:]
    var nextID = 0
    var held: [Held] = []
    /// Signals dropped because `held` was full.
    var droppedWhileHeld = 0

    mutating func removeAll() {
        routes.removeAll()
        held.removeAll()
    }
}

extension DBusConnection {
    /// Adds `rule` on the bus and calls `handler` for every matching signal, on the loop.
    ///
    /// The `AddMatch` is sent before anything you send afterwards, so subscribing before
    /// reading state guarantees no change is missed. A well-known `sender` is resolved to
    /// its current owner for local routing.
    public func subscribe(_ rule: MatchRule, handler: @escaping (DBusSignal) -> Void) -> SignalSubscription {
        signalRoutes.nextID += 1
        let id = signalRoutes.nextID
        signalRoutes.routes[id] = SignalRoutes.Route(rule: rule, handler: handler)
        if isConnected {
            rule.ruleString.withCString { dbus_bus_add_match(raw, $0, nil) }  // no error: does not block
            bridge.scheduleDispatch()
        }
        if rule.senderIsWellKnown, let sender = rule.sender, sender != "org.freedesktop.DBus" {
            retainOwnerTracking(of: sender)
        }
        return SignalSubscription(connection: self, id: id, rule: rule)
    }

    func unsubscribe(_ id: Int) {
        guard let route = signalRoutes.routes.removeValue(forKey: id) else { return }
        if isConnected {
            route.rule.ruleString.withCString { dbus_bus_remove_match(raw, $0, nil) }
        }
        if route.rule.senderIsWellKnown, let sender = route.rule.sender, sender != "org.freedesktop.DBus" {
            releaseOwnerTracking(of: sender)
        }
    }

    func routeSignal(_ message: Message) {
        guard let sender = message.sender, let pathText = message.pathString,
            let path = ObjectPath(validating: pathText), let interface = message.interface,
            let member = message.member
        else { return }
        // Decode lazily: only when some route wants this signal's header.
        let candidates = signalRoutes.routes.sorted { $0.key < $1.key }.filter { _, route in
            (route.rule.path == nil || route.rule.path == path)
                && (route.rule.interface == nil || route.rule.interface == interface)
                && (route.rule.member == nil || route.rule.member == member)
        }
        guard !candidates.isEmpty, let arguments = try? message.arguments() else { return }
        let signal = DBusSignal(sender: sender, path: path, interface: interface, member: member, arguments: arguments)
        var waiting: [Int] = []
        for (id, route) in candidates {
            let owner = senderOwner(for: route.rule)
            if case .pending = owner {
                // Any client can send us a signal directly, past the bus's match rules: until the
                // owner of the route's sender is known, the signal waits instead of being trusted.
                waiting.append(id)
                continue
            }
            // A handler may cancel a later subscription.
            guard route.rule.matches(signal, senderOwner: owner), let current = signalRoutes.routes[id] else {
                continue
            }
            current.handler(signal)
        }
        guard !waiting.isEmpty else { return }
        guard signalRoutes.held.count < SignalRoutes.maximumHeld else {
            signalRoutes.droppedWhileHeld += 1
            return
        }
        signalRoutes.held.append(SignalRoutes.Held(signal: signal, routeIDs: waiting))
    }

    /// An owner became known: the signals that waited for it are delivered to the routes they
    /// match now, or dropped; those still waiting for another owner keep waiting.
    func releaseHeldSignals() {
        guard !signalRoutes.held.isEmpty else { return }
        let held = signalRoutes.held
        signalRoutes.held.removeAll()
        for entry in held {
            var stillWaiting: [Int] = []
            for id in entry.routeIDs {
                guard let route = signalRoutes.routes[id] else { continue }
                let owner = senderOwner(for: route.rule)
                if case .pending = owner {
                    stillWaiting.append(id)
                } else if route.rule.matches(entry.signal, senderOwner: owner) {
                    route.handler(entry.signal)
                }
            }
            if !stillWaiting.isEmpty {
                signalRoutes.held.append(SignalRoutes.Held(signal: entry.signal, routeIDs: stillWaiting))
            }
        }
    }

    private func senderOwner(for rule: MatchRule) -> MatchRule.SenderOwner {
        guard let sender = rule.sender else { return .unknown }
        if !rule.senderIsWellKnown { return .unique(sender) }
        if sender == "org.freedesktop.DBus" { return .unique("org.freedesktop.DBus") }
        guard let tracker = ownerTrackers[sender] else { return .pending }
        guard tracker.isResolved else { return .pending }
        return tracker.owner.map { .unique($0) } ?? .none
    }
}
