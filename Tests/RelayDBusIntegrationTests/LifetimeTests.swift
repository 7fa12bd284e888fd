import RelayRuntime
import RelayTestSupport
import XCTest

@testable import RelayDBus

/// Objects handed to libdbus as user data are released when libdbus is done with them.
final class LifetimeTests: XCTestCase {
    func testConnectionAndItsLoopBridgeAreReleased() throws {
        let loop = EventLoop()
        let bus = try PrivateBus()
        defer { bus.stop() }
        let peer = try bus.connect(loop)
        peer.exportPolicy = .anyone
        try peer.export(
            ExportedObject(
                path: "/o",
                interfaces: [
                    ExportedInterface("org.example.O", methods: [ExportedMethod("M") { _ in .success([]) }])
                ]))
        weak var weakConnection: DBusConnection?
        weak var weakBridge: ConnectionLoopBridge?
        do {
            let connection = try bus.connect(loop)
            weakConnection = connection
            weakBridge = connection.bridge
            let subscription = connection.subscribe(MatchRule(sender: "org.example.Named", interface: "org.example.X"))
            { _ in }
            let watcher = NameOwnerWatcher(connection: connection, name: "org.example.Named")
            XCTAssertNotNil(loop.call(connection, peer.uniqueName, "/o", "org.example.O", "M"))
            XCTAssertTrue(loop.run(until: { watcher.isResolved }, timeout: 20))
            withExtendedLifetime((subscription, watcher)) {}
        }
        XCTAssertNil(weakConnection)
        XCTAssertNil(weakBridge)
    }

    func testPendingCallIsReleasedAfterItsReply() throws {
        let loop = EventLoop()
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try bus.connect(loop)
        weak var weakPending: DBusPendingCall?
        var done = false
        do {
            let pending = connection.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                method: "GetId"
            ) { _ in done = true }
            weakPending = pending
        }
        XCTAssertNotNil(weakPending, "libdbus holds the call while it is outstanding")
        XCTAssertTrue(loop.run(until: { done }, timeout: 20))
        XCTAssertNil(weakPending)
    }

    func testCancelledPendingCallIsReleased() throws {
        let loop = EventLoop()
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try bus.connect(loop)
        weak var weakPending: DBusPendingCall?
        do {
            let pending = connection.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                method: "GetId"
            ) { _ in XCTFail("cancelled") }
            weakPending = pending
            pending.cancel()
        }
        XCTAssertNil(weakPending)
        XCTAssertNotNil(
            loop.call(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId"))
    }
}
