import RelayDBus
import RelayProtocol
import RelayRuntime
import XCTest

@testable import RelayBlueZ

/// Two centrals on one peripheral: each is told apart by its device, each gets notifications
/// while subscribed.
final class BluezooMultiCentralTests: BluezooTestCase {
    func testTwoCentralsWriteAndSubscribeIndependently() throws {
        let peripheral = try startedClient(adapters: 2)
        try addThirdAdapter(seenBy: peripheral)
        // Both centrals share one bluezoo, so each sees every adapter's objects: keep the paths.
        var notifications: [(path: ObjectPath, value: [UInt8])] = []
        let centralA = try startedClient(adapters: 3) { event in
            if case .gatt(.valueChanged(let c, let value)) = event { notifications.append((c.path, value)) }
        }
        let centralB = try startedClient(adapters: 3)
        let hci0 = try XCTUnwrap(peripheral.tree.adapter(matching: "hci0"))
        let application = relayApplication(peripheral)
        var writers: [BluetoothAddress?] = []
        application.onEvent = { if case .written(_, _, let request) = $0 { writers.append(request.deviceAddress) } }
        _ = try complete("RegisterApplication") { application.register(adapter: hci0.id, completion: $0) }
        let advertisement = LEAdvertisement(
            client: peripheral, data: AdvertisementData(serviceUUIDs: [serviceUUID], localName: "sample"))
        _ = try complete("RegisterAdvertisement") { advertisement.register(adapter: hci0.id, completion: $0) }

        let deviceA = try discoverAndConnect(centralA, from: "hci1") { centralA.tree.devices(on: "/org/bluez/hci1") }
        let deviceB = try discoverAndConnect(centralB, from: "hci2") { centralB.tree.devices(on: "/org/bluez/hci2") }
        let notifyA = try XCTUnwrap(centralA.characteristic(notifyUUID, service: serviceUUID, device: deviceA.path))
        let notifyB = try XCTUnwrap(centralB.characteristic(notifyUUID, service: serviceUUID, device: deviceB.path))
        let writeA = try XCTUnwrap(centralA.characteristic(writeUUID, service: serviceUUID, device: deviceA.path))
        let writeB = try XCTUnwrap(centralB.characteristic(writeUUID, service: serviceUUID, device: deviceB.path))
        XCTAssertNotEqual(notifyA.path, notifyB.path)
        var valuesA: [[UInt8]] { notifications.filter { $0.path == notifyA.path }.map(\.value) }
        var valuesB: [[UInt8]] { notifications.filter { $0.path == notifyB.path }.map(\.value) }

        try complete("A writes") {
            centralA.writeValue([1, 0, 0, 0], characteristic: writeA.path, type: .command, completion: $0)
        }
        try complete("B writes") {
            centralB.writeValue([2, 0, 0, 0], characteristic: writeB.path, type: .request, completion: $0)
        }
        wait("both writes") { writers.count == 2 }
        XCTAssertEqual(Set(writers.compactMap { $0 }), [centralAddress, BluetoothAddress("00:00:00:33:33:33")!])

        try complete("A subscribes") { centralA.startNotify(characteristic: notifyA.path, completion: $0) }
        try complete("B subscribes") { centralB.startNotify(characteristic: notifyB.path, completion: $0) }
        XCTAssertEqual(application.notify([3, 0, 0, 0], on: notifyUUID), .sent)
        wait("both receive") { valuesA == [[3, 0, 0, 0]] && valuesB == [[3, 0, 0, 0]] }

        try complete("A unsubscribes") { centralA.stopNotify(characteristic: notifyA.path, completion: $0) }
        XCTAssertTrue(application.isNotifying(notifyUUID), "B is still subscribed")
        XCTAssertEqual(application.notify([4, 0, 0, 0], on: notifyUUID), .sent)
        wait("B receives") { valuesB == [[3, 0, 0, 0], [4, 0, 0, 0]] }
        XCTAssertEqual(valuesA, [[3, 0, 0, 0]])
    }
}
