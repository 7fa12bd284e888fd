import RelayDBus
import RelayRuntime
import RelayTestSupport
import XCTest

/// What a connection trusts while the owner of a well-known name is not known yet (the moment
/// after start-up before `GetNameOwner` answers): nothing unchecked, and a bounded wait.
///
/// The connection under test runs on a loop of its own, held still while other clients send, so
/// their messages wait in its socket ahead of the answer about the owner.
///
/// Any client can address a signal to us directly, past the bus's match rules: a signal for a subscription
/// from `org.bluez` waits (at most 256) and is delivered only if it came from the owner once known; method
/// calls on our objects wait in a queue of at most 64, a call beyond answered `LimitsExceeded`. Before
/// (issue 30, item 16), such a signal was delivered unchecked and the queue had no bound.
final class OwnerPendingTests: XCTestCase {
    private var loop: EventLoop!
    private var heldLoop: EventLoop!
    private var bus: PrivateBus!
    private var owner: DBusConnection!
    private var intruder: DBusConnection!
    private var subject: DBusConnection!

    private let ownerName = "org.example.Owner"

    override func setUpWithError() throws {
        loop = EventLoop()
        heldLoop = EventLoop()
        bus = try PrivateBus()
        owner = try bus.connect(loop)
        intruder = try bus.connect(loop)
        subject = try bus.connect(heldLoop)
        XCTAssertNotNil(loop.wait { done in self.owner.requestName(self.ownerName) { done($0) } })
    }

    override func tearDown() {
        owner = nil
        intruder = nil
        subject = nil
        bus.stop()
        bus = nil
        loop = nil
        heldLoop = nil
    }

    /// A round trip through the bus on `connection`: everything it sent before has been handled.
    private func roundTrip(_ connection: DBusConnection, on loop: EventLoop) {
        XCTAssertNotNil(
            loop.call(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId"))
    }

    func testASignalSentStraightToUsBeforeTheOwnerIsKnownIsCheckedOnceItIs() throws {
        // Any client can address a signal to us directly, past the bus's match rules.
        try intruder.emitSignal(
            path: "/org/example", interface: "org.example.I", member: "Tick", arguments: [.uint32(666)],
            destination: subject.uniqueName)
        try owner.emitSignal(
            path: "/org/example", interface: "org.example.I", member: "Tick", arguments: [.uint32(1)],
            destination: subject.uniqueName)
        roundTrip(intruder, on: loop)
        roundTrip(owner, on: loop)
        var received: [DBusSignal] = []
        let subscription = subject.subscribe(MatchRule(sender: ownerName, interface: "org.example.I")) {
            received.append($0)
        }
        // Both signals are dispatched before the owner lookup's answer, which comes behind them.
        roundTrip(subject, on: heldLoop)
        XCTAssertEqual(received.map(\.arguments), [[.uint32(1)]], "only the owner's signal, once its owner is known")
        XCTAssertEqual(received.first?.sender, owner.uniqueName)
        withExtendedLifetime(subscription) {}
    }

    func testCallsBeforeTheOwnerIsKnownWaitInABoundedQueue() throws {
        let sent = 70
        var answers: [Result<[DBusValue], DBusError>] = []
        for _ in 0..<sent {
            intruder.call(
                destination: subject.uniqueName, path: "/app", interface: "org.freedesktop.DBus.Introspectable",
                method: "Introspect", arguments: [], timeout: 25
            ) { answers.append($0) }
        }
        roundTrip(intruder, on: loop)
        subject.exportPolicy = .owner(of: ownerName)
        try subject.export(ExportedObject(path: "/app", isObjectManager: true))
        roundTrip(subject, on: heldLoop)
        loop.run(until: { answers.count == sent }, timeout: 20)
        let names = answers.map { remoteError($0)?.name ?? "success" }
        XCTAssertEqual(names.filter { $0 == DBusRemoteError.Names.limitsExceeded }.count, sent - 64)
        XCTAssertEqual(
            names.filter { $0 == DBusRemoteError.Names.accessDenied }.count, 64,
            "the waiting calls are decided once the owner is known")
        // The owner is then served as always.
        var served: Result<[DBusValue], DBusError>?
        owner.call(
            destination: subject.uniqueName, path: "/app", interface: "org.freedesktop.DBus.Introspectable",
            method: "Introspect", arguments: [], timeout: 25
        ) { served = $0 }
        roundTrip(owner, on: loop)
        roundTrip(subject, on: heldLoop)
        loop.run(until: { served != nil }, timeout: 20)
        XCTAssertNoThrow(try XCTUnwrap(served).get())
    }
}
