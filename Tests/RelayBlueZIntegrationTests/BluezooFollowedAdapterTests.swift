import RelayDBus
import RelayProtocol
import RelayRuntime
import XCTest

@testable import RelayBlueZ

/// A program that follows one adapter (`BlueZClient.follow(adapter:)`) hears its own objects'
/// changes and every adapter's own properties, and is not woken by what the other adapters'
/// devices do (issue 47: fifteen centrals on one bluetoothd each woke for all fifteen's
/// notifications).
final class BluezooFollowedAdapterTests: BluezooTestCase {
    func testACentralFollowingItsAdapterHearsItsOwnNotificationsOnly() throws {
        let peripheral = try startedClient(adapters: 2)
        try addThirdAdapter(seenBy: peripheral)

        var heardByA: [(path: ObjectPath, value: [UInt8])] = []
        var adapterChangesHeardByA: [ObjectPath] = []
        let centralA = try startedClient(adapters: 3) { event in
            switch event {
            case .gatt(.valueChanged(let c, let value)): heardByA.append((c.path, value))
            case .adapter(.changed(let adapter, _)): adapterChangesHeardByA.append(adapter.path)
            default: break
            }
        }
        var heardByB: [(path: ObjectPath, value: [UInt8])] = []
        let centralB = try startedClient(adapters: 3) { event in
            if case .gatt(.valueChanged(let c, let value)) = event { heardByB.append((c.path, value)) }
        }
        let hci0 = try XCTUnwrap(peripheral.tree.adapter(matching: "hci0"))
        let application = relayApplication(peripheral)
        _ = try complete("RegisterApplication") { application.register(adapter: hci0.id, completion: $0) }
        let advertisement = LEAdvertisement(
            client: peripheral, data: AdvertisementData(serviceUUIDs: [serviceUUID], localName: "sample"))
        _ = try complete("RegisterAdvertisement") { advertisement.register(adapter: hci0.id, completion: $0) }

        let deviceA = try discoverAndConnect(centralA, from: "hci1") { centralA.tree.devices(on: "/org/bluez/hci1") }
        let deviceB = try discoverAndConnect(centralB, from: "hci2") { centralB.tree.devices(on: "/org/bluez/hci2") }
        let hci1 = try XCTUnwrap(centralA.tree.adapter(matching: "hci1"))
        let hci2 = try XCTUnwrap(centralB.tree.adapter(matching: "hci2"))
        centralA.follow(adapter: hci1.id)
        centralB.follow(adapter: hci2.id)
        XCTAssertEqual(centralA.followedNamespace, "/org/bluez/hci1")
        let notifyA = try XCTUnwrap(centralA.characteristic(notifyUUID, service: serviceUUID, device: deviceA.path))
        let notifyB = try XCTUnwrap(centralB.characteristic(notifyUUID, service: serviceUUID, device: deviceB.path))
        try complete("A subscribes") { centralA.startNotify(characteristic: notifyA.path, completion: $0) }
        try complete("B subscribes") { centralB.startNotify(characteristic: notifyB.path, completion: $0) }
        heardByA = []
        heardByB = []

        for value: UInt8 in 1...3 {
            XCTAssertEqual(application.notify([value, 0, 0, 0], on: notifyUUID), .sent)
        }
        wait("both receive") { heardByA.count == 3 && heardByB.count == 3 }
        // Let any of the other central's changes that would still come arrive.
        _ = loop.run(until: { false }, timeout: 0.5)
        XCTAssertEqual(heardByA.map(\.path), [notifyA.path, notifyA.path, notifyA.path], "A hears its own values only")
        XCTAssertEqual(heardByB.map(\.path), [notifyB.path, notifyB.path, notifyB.path], "B hears its own values only")
        XCTAssertEqual(heardByA.map(\.value), [[1, 0, 0, 0], [2, 0, 0, 0], [3, 0, 0, 0]])

        // Another adapter's own properties are still heard (a program chooses among adapters).
        adapterChangesHeardByA = []
        try complete("hci2 discovers") { centralB.startDiscovery(adapter: hci2.id, completion: $0) }
        wait("A hears hci2's Discovering") { adapterChangesHeardByA.contains(hci2.path) }
        XCTAssertEqual(centralA.tree.adapter(at: hci2.path)?.discovering, true)
        try complete("hci2 stops") { centralB.stopDiscovery(adapter: hci2.id, completion: $0) }

        // Following every adapter again reads the objects afresh: what changed below hci2 while
        // it was not followed (B's values) is known then.
        XCTAssertNotEqual(centralA.tree.characteristic(at: notifyB.path)?.value, [3, 0, 0, 0])
        centralA.follow(adapter: nil)
        wait("A reads hci2's objects again") { centralA.tree.characteristic(at: notifyB.path)?.value == [3, 0, 0, 0] }
        XCTAssertEqual(application.notify([4, 0, 0, 0], on: notifyUUID), .sent)
        wait("A hears both values again") { heardByA.contains { $0.path == notifyB.path && $0.value == [4, 0, 0, 0] } }
    }
}
