import RelayDBus
import RelayProtocol
import RelayRuntime
import RelayTestSupport
import XCTest

@testable import RelayBlueZ

/// How `BlueZClient.start()` finds bluetoothd: the first `GetManagedObjects` goes out right
/// behind the owner lookup, and whatever the order of events, the objects are loaded once per
/// owner and `serviceAppeared` comes once per owner.
final class BluezooClientStartTests: XCTestCase {
    func run(_ loop: EventLoop, _ what: String, _ condition: () -> Bool) {
        if !loop.run(until: condition, timeout: 15) { XCTFail("timed out waiting for \(what)") }
    }

    /// Counts the owner and load events of a client.
    final class Counts {
        var appeared: [String] = []
        var loaded = 0
        var vanished = 0
    }

    func startClient(on bus: PrivateBus, _ loop: EventLoop) throws -> (BlueZClient, Counts) {
        let client = BlueZClient(connection: try bus.connect(loop))
        let counts = Counts()
        client.onEvent = { event in
            switch event {
            case .serviceAppeared(let owner): counts.appeared.append(owner)
            case .objectsLoaded: counts.loaded += 1
            case .serviceVanished: counts.vanished += 1
            default: break
            }
        }
        client.start()
        return (client, counts)
    }

    func testBluetoothdAlreadyRunningIsLoadedOnce() throws {
        let bus = try PrivateBus(bluezooAdapters: PrivateBus.defaultAdapters)
        let loop = EventLoop()
        let (client, counts) = try startClient(on: bus, loop)
        run(loop, "loaded") { client.isAvailable }
        XCTAssertEqual(client.tree.adapters.count, PrivateBus.defaultAdapters.count)
        // Let any second (redundant) read arrive before counting.
        _ = loop.run(until: { false }, timeout: 0.5)
        XCTAssertEqual(counts.appeared, [client.owner!])
        XCTAssertEqual(counts.loaded, 1, "the read sent with the owner lookup is the only one")
        XCTAssertEqual(counts.vanished, 0)
    }

    func testBluetoothdStartingLaterIsLoadedWhenItAppears() throws {
        let bus = try PrivateBus()
        let loop = EventLoop()
        let (client, counts) = try startClient(on: bus, loop)
        // The early read fails (nobody owns org.bluez, and the bus must not try to start it).
        _ = loop.run(until: { false }, timeout: 0.5)
        XCTAssertNil(client.owner)
        XCTAssertFalse(client.isLoaded)
        XCTAssertEqual(counts.loaded, 0)
        XCTAssertTrue(counts.appeared.isEmpty)
        XCTAssertEqual(counts.vanished, 1, "bluetoothd absent at start is reported, once")

        try bus.startBluezoo()
        run(loop, "loaded after bluetoothd appeared") { client.isAvailable && client.tree.adapters.count == 2 }
        _ = loop.run(until: { false }, timeout: 0.5)
        XCTAssertEqual(counts.appeared.count, 1)
        XCTAssertEqual(counts.loaded, 1)

        bus.stopBluezoo()
        run(loop, "gone") { counts.vanished == 2 }
        XCTAssertFalse(client.isLoaded)
        try bus.startBluezoo()
        run(loop, "back") { client.isAvailable && client.tree.adapters.count == 2 }
        XCTAssertEqual(counts.appeared.count, 2)
        XCTAssertEqual(counts.loaded, 2)
    }
}
