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
    var routes: [Int: Route] = [:]
    var nextID = 0

    mutating func removeAll() { routes.removeAll() }
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
        for (id, route) in candidates where route.rule.matches(signal, senderOwner: senderOwner(for: route.rule)) {
            // A handler may cancel a later subscription.
            guard signalRoutes.routes[id] != nil else { continue }
            route.handler(signal)
        }
    }

    private func senderOwner(for rule: MatchRule) -> MatchRule.SenderOwner {
        guard let sender = rule.sender else { return .unknown }
        if !rule.senderIsWellKnown { return .unique(sender) }
        if sender == "org.freedesktop.DBus" { return .unique("org.freedesktop.DBus") }
        guard let tracker = ownerTrackers[sender], tracker.isResolved else { return .unknown }
        return tracker.owner.map { .unique($0) } ?? .none
    }
}
