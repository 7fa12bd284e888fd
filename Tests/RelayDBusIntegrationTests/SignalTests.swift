import RelayDBus
import RelayRuntime
import RelayTestSupport
import XCTest

/// Signal subscriptions and name-owner tracking on a private bus.
final class SignalTests: XCTestCase {
    private var loop: EventLoop!
    private var bus: PrivateBus!
    private var emitter: DBusConnection!
    private var other: DBusConnection!
    private var listener: DBusConnection!

    override func setUpWithError() throws {
        loop = EventLoop()
        bus = try PrivateBus()
        emitter = try bus.connect(loop)
        other = try bus.connect(loop)
        listener = try bus.connect(loop)
    }

    override func tearDown() {
        emitter = nil
        other = nil
        listener = nil
        bus.stop()
        bus = nil
        loop = nil
    }

    /// Runs the loop until a round trip through the bus completes on every connection, so
    /// every signal emitted before has been delivered.
    private func flush() {
        for connection in [emitter!, other!, listener!] {
            _ = loop.call(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")
        }
    }

    private func emit(
        _ from: DBusConnection, _ path: ObjectPath, _ interface: String, _ member: String,
        _ arguments: [DBusValue] = []
    ) throws {
        try from.emitSignal(path: path, interface: interface, member: member, arguments: arguments)
    }

    func testSignalsAreRoutedByPathInterfaceAndMember() throws {
        var byMember: [DBusSignal] = []
        var byNamespace: [DBusSignal] = []
        var byArg0: [DBusSignal] = []
        let first = listener.subscribe(MatchRule(path: "/a", interface: "org.example.I", member: "Ping")) {
            byMember.append($0)
        }
        let second = listener.subscribe(MatchRule(pathNamespace: "/a", interface: "org.example.I")) {
            byNamespace.append($0)
        }
        let third = listener.subscribe(MatchRule(interface: "org.example.J", arg0: "wanted")) { byArg0.append($0) }
        flush()
        try emit(emitter, "/a", "org.example.I", "Ping", [.uint32(1)])
        try emit(emitter, "/a", "org.example.I", "Pong", [.uint32(2)])
        try emit(emitter, "/a/b", "org.example.I", "Ping", [.uint32(3)])
        try emit(emitter, "/ab", "org.example.I", "Ping", [.uint32(4)])
        try emit(emitter, "/a", "org.example.J", "Ping", [.string("wanted")])
        try emit(emitter, "/a", "org.example.J", "Ping", [.string("other")])
        flush()
        XCTAssertEqual(byMember.map(\.arguments), [[.uint32(1)]])
        XCTAssertEqual(byMember.first?.sender, emitter.uniqueName)
        XCTAssertEqual(byNamespace.map(\.arguments), [[.uint32(1)], [.uint32(2)], [.uint32(3)]])
        XCTAssertEqual(byArg0.map(\.arguments), [[.string("wanted")]])
        withExtendedLifetime((first, second, third)) {}
    }

    func testWellKnownSenderIsResolvedToItsOwner() throws {
        XCTAssertNotNil(loop.wait { done in self.emitter.requestName("org.example.Emitter") { done($0) } })
        var fromName: [DBusSignal] = []
        var fromAnyone: [DBusSignal] = []
        let named = listener.subscribe(MatchRule(sender: "org.example.Emitter", interface: "org.example.I")) {
            fromName.append($0)
        }
        let broad = listener.subscribe(MatchRule(interface: "org.example.I")) { fromAnyone.append($0) }
        flush()
        try emit(emitter, "/x", "org.example.I", "Tick", [.uint32(1)])
        try emit(other, "/x", "org.example.I", "Tick", [.uint32(2)])
        flush()
        XCTAssertEqual(fromName.map(\.arguments), [[.uint32(1)]], "the other sender's signal must not be routed")
        XCTAssertEqual(fromAnyone.count, 2)
        withExtendedLifetime((named, broad)) {}
    }

    func testCancelledSubscriptionStopsDelivery() throws {
        var count = 0
        let subscription = listener.subscribe(MatchRule(interface: "org.example.I")) { _ in count += 1 }
        flush()
        try emit(emitter, "/x", "org.example.I", "Tick")
        flush()
        subscription.cancel()
        try emit(emitter, "/x", "org.example.I", "Tick")
        flush()
        XCTAssertEqual(count, 1)
    }

    func testReleasedSubscriptionStopsDelivery() throws {
        var count = 0
        var subscription: SignalSubscription? = listener.subscribe(MatchRule(interface: "org.example.I")) { _ in
            count += 1
        }
        flush()
        try emit(emitter, "/x", "org.example.I", "Tick")
        flush()
        XCTAssertNotNil(subscription)
        subscription = nil
        try emit(emitter, "/x", "org.example.I", "Tick")
        flush()
        XCTAssertEqual(count, 1)
    }

    func testNameOwnerWatcherTracksAppearanceAndDisappearance() throws {
        var states: [NameOwnerWatcher.State] = []
        let watcher = NameOwnerWatcher(connection: listener, name: "org.example.Service") { states.append($0) }
        XCTAssertTrue(loop.run(until: { watcher.isResolved }, timeout: 20))
        XCTAssertEqual(watcher.state, .unowned)

        XCTAssertNotNil(loop.wait { done in self.emitter.requestName("org.example.Service") { done($0) } })
        let emitterName = emitter.uniqueName
        XCTAssertTrue(loop.run(until: { watcher.owner != nil }, timeout: 20))
        XCTAssertEqual(watcher.owner, emitterName)

        emitter.close()  // the owner goes away
        XCTAssertTrue(loop.run(until: { watcher.owner == nil }, timeout: 20))
        XCTAssertEqual(states, [.unowned, .owned(by: emitterName), .unowned])
    }

    func testNameOwnerWatcherSeesAnExistingOwner() throws {
        XCTAssertNotNil(loop.wait { done in self.emitter.requestName("org.example.Service") { done($0) } })
        let watcher = NameOwnerWatcher(connection: listener, name: "org.example.Service")
        XCTAssertTrue(loop.run(until: { watcher.isResolved }, timeout: 20))
        XCTAssertEqual(watcher.owner, emitter.uniqueName)
    }

    func testRequestingATakenNameFails() throws {
        XCTAssertNotNil(loop.wait { done in self.emitter.requestName("org.example.Service") { done($0) } })
        let second = loop.wait { done in self.other.requestName("org.example.Service") { done($0) } }
        guard case .failure = second else { return XCTFail("the name was taken: \(String(describing: second))") }
    }
}
