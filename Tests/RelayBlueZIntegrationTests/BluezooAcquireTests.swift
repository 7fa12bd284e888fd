import Glibc
import RelayDBus
import RelayProtocol
import RelayRuntime
import XCTest

@testable import RelayBlueZ

/// The socket fast path and bluetoothd restarts, against bluezoo. bluezoo forwards a central's
/// `AcquireWrite` to the serving application's `AcquireWrite` and serves `StartNotify` through
/// the application's `AcquireNotify`, so both ends of the sockets are ours here; real bluetoothd
/// makes its own sockets (covered by the VM scenarios).
final class BluezooAcquireTests: BluezooTestCase {
    func testAcquiredSocketsCarryWritesAndNotifications() throws {
        let peripheral = try startedClient()
        var values: [[UInt8]] = []
        let central = try startedClient { event in
            if case .gatt(.valueChanged(let characteristic, let value)) = event,
                characteristic.uuid == self.notifyUUID
            {
                values.append(value)
            }
        }
        let hci0 = try XCTUnwrap(peripheral.tree.adapter(matching: "hci0"))
        let application = relayApplication(peripheral, acquire: true)
        var serverEvents: [GattServerEvent] = []
        application.onEvent = { serverEvents.append($0) }
        _ = try complete("RegisterApplication") { application.register(adapter: hci0.id, completion: $0) }
        let advertisement = LEAdvertisement(
            client: peripheral, data: AdvertisementData(serviceUUIDs: [serviceUUID], localName: "sample"))
        _ = try complete("RegisterAdvertisement") { advertisement.register(adapter: hci0.id, completion: $0) }

        let device = try discoverAndConnect(central) { central.tree.devices(on: "/org/bluez/hci1") }
        let write = try XCTUnwrap(central.characteristic(writeUUID, service: serviceUUID, device: device.path))
        let notify = try XCTUnwrap(central.characteristic(notifyUUID, service: serviceUUID, device: device.path))
        XCTAssertEqual(write.writeAcquired, false)
        XCTAssertEqual(notify.notifyAcquired, false)

        // Central: AcquireWrite, then one datagram per value.
        let link = try complete("AcquireWrite") { central.acquireWrite(characteristic: write.path, completion: $0) }
        XCTAssertGreaterThanOrEqual(link.mtu, MTU.default)
        XCTAssertEqual(link.send([1, 0, 0, 0]), .sent)
        XCTAssertEqual(link.send(Array("hello".utf8)), .sent)
        wait("both datagrams arrive as writes") {
            serverEvents.filter {
                if case .written = $0 { return true }
                return false
            }.count == 2
        }
        let written = serverEvents.compactMap { event -> [UInt8]? in
            if case .written(_, let value, _) = event { return value }
            return nil
        }
        XCTAssertEqual(written, [[1, 0, 0, 0], Array("hello".utf8)])
        XCTAssertTrue(
            serverEvents.contains {
                if case .writeAcquired = $0 { return true }
                return false
            })

        link.close()
        XCTAssertFalse(link.isOpen)
        XCTAssertEqual(link.send([1]), .failed(0))

        // StartNotify: bluezoo acquires our notification socket; notify() goes through it.
        try complete("StartNotify") { central.startNotify(characteristic: notify.path, completion: $0) }
        wait("notify socket acquired") { application.notifyLinkMTU(notifyUUID) != nil }
        XCTAssertTrue(application.isNotifying(notifyUUID))
        XCTAssertEqual(application.notify([5, 0, 0, 0], on: notifyUUID), .sent)
        wait("notification through the socket") { values.contains([5, 0, 0, 0]) }
    }

    func testCentralAcquireNotifyReceivesEachNotificationAsADatagram() throws {
        let peripheral = try startedClient()
        let central = try startedClient()
        let hci0 = try XCTUnwrap(peripheral.tree.adapter(matching: "hci0"))
        let application = relayApplication(peripheral, acquire: true)
        _ = try complete("RegisterApplication") { application.register(adapter: hci0.id, completion: $0) }
        let advertisement = LEAdvertisement(
            client: peripheral, data: AdvertisementData(serviceUUIDs: [serviceUUID], localName: "sample"))
        _ = try complete("RegisterAdvertisement") { advertisement.register(adapter: hci0.id, completion: $0) }
        let device = try discoverAndConnect(central) { central.tree.devices(on: "/org/bluez/hci1") }
        let notify = try XCTUnwrap(central.characteristic(notifyUUID, service: serviceUUID, device: device.path))

        let link = try complete("AcquireNotify") { central.acquireNotify(characteristic: notify.path, completion: $0) }
        var received: [[UInt8]] = []
        link.onEvent = { if case .received(let bytes) = $0 { received.append(bytes) } }
        XCTAssertTrue(application.isNotifying(notifyUUID))
        XCTAssertEqual(application.notify([1, 0, 0, 0], on: notifyUUID), .sent)
        XCTAssertEqual(application.notify(Array(repeating: 0xab, count: 180), on: notifyUUID), .sent)
        wait("two datagrams") { received.count == 2 }
        XCTAssertEqual(received, [[1, 0, 0, 0], Array(repeating: 0xab, count: 180)])

        // A second acquisition is refused while the first holds the socket.
        var second: Result<AcquiredLink, BlueZError>?
        central.acquireNotify(characteristic: notify.path) { second = $0 }
        wait("second AcquireNotify answered") { second != nil }
        guard case .failure(let error)? = second else { return XCTFail("second acquisition succeeded") }
        XCTAssertEqual(error.kind, .notPermitted)
        XCTAssertEqual(error.message, "Notify acquired")
    }

    /// BlueZ 5.69 and later call `AcquireNotify` once per subscribing device (bluez#460) and fall
    /// back to `StartNotify` when refused; from 5.76 a socket's data reaches its own device only.
    /// Played here as bluetoothd plays it: each central must get each value once (the socket
    /// and a signal together gave the first central every counter twice on BlueZ 5.82).
    /// relay-peripheral keeps one socket and refuses the others with `NotPermitted`; the first central's
    /// counters came 0,1,0,1,2,2. Each central now gets each value once, on 5.66 and 5.82.
    func testPerDeviceAcquireNotifyFallsBackToOneSignalForAll() throws {
        let peripheral = try startedClient()
        let application = relayApplication(peripheral, acquire: true)
        try application.export()
        let path = try XCTUnwrap(application.characteristics[notifyUUID]?.path)
        func acquire(_ device: String) -> Result<[DBusValue], DBusRemoteError> {
            application.handleAcquire(
                notifyUUID,
                DBusMethodCall(
                    sender: ":1.0", path: path, interface: "org.bluez.GattCharacteristic1", member: "AcquireNotify",
                    arguments: [
                        .stringDict([
                            "device": .objectPath(try! ObjectPath("/org/bluez/hci0/\(device)")),
                            "mtu": .uint16(185),
                        ])
                    ]),
                forWrite: false)
        }
        guard case .success(let reply) = acquire("dev_00_00_00_00_00_0A"),
            case .unixFD(let handed)? = reply.first
        else { return XCTFail("first AcquireNotify refused") }
        let socketOfA = try XCTUnwrap(handed.rawValue)
        func readSocketOfA() -> [UInt8]? {
            var buffer = [UInt8](repeating: 0, count: 600)
            let count = recv(socketOfA, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            return count > 0 ? Array(buffer[..<count]) : nil
        }

        // One central (every BlueZ): the socket carries the value, no signal is needed.
        XCTAssertEqual(application.notify([1, 0, 0, 0], on: notifyUUID), .sent)
        XCTAssertEqual(readSocketOfA(), [1, 0, 0, 0])

        // A second device asks for its own socket: refused with NotPermitted, so that
        // bluetoothd subscribes it with StartNotify.
        guard case .failure(let refusal) = acquire("dev_00_00_00_00_00_0B") else {
            return XCTFail("a second notify socket was handed out")
        }
        XCTAssertEqual(refusal.name, "org.bluez.Error.NotPermitted")
        XCTAssertNoThrow(try application.handleStartNotify(notifyUUID).get())

        // From now on the value goes by signal only (bluetoothd sends it to A and B), never
        // also into A's socket.
        XCTAssertEqual(application.notify([2, 0, 0, 0], on: notifyUUID), .sent)
        XCTAssertNil(readSocketOfA(), "the socket's device would get the value twice")
        XCTAssertEqual(application.value(of: notifyUUID), [2, 0, 0, 0])

        // B unsubscribes: A's socket carries the values again.
        XCTAssertNoThrow(try application.handleStopNotify(notifyUUID).get())
        XCTAssertEqual(application.notify([3, 0, 0, 0], on: notifyUUID), .sent)
        XCTAssertEqual(readSocketOfA(), [3, 0, 0, 0])
    }

    func testBluetoothdRestartIsReportedAndRegistrationsEnd() throws {
        var vanished = 0
        var appeared = 0
        var removedAdapters: [AdapterID] = []
        let peripheral = try startedClient { event in
            switch event {
            case .serviceVanished: vanished += 1
            case .serviceAppeared: appeared += 1
            case .adapter(.removed(let id)): removedAdapters.append(id)
            default: break
            }
        }
        XCTAssertEqual(appeared, 1)
        let hci0 = try XCTUnwrap(peripheral.tree.adapter(matching: "hci0"))
        let application = relayApplication(peripheral)
        var unregistered = false
        application.onEvent = { if case .unregistered = $0 { unregistered = true } }
        _ = try complete("RegisterApplication") { application.register(adapter: hci0.id, completion: $0) }
        let advertisement = LEAdvertisement(client: peripheral, data: AdvertisementData(localName: "sample"))
        var released = false
        advertisement.onReleased = { released = true }
        _ = try complete("RegisterAdvertisement") { advertisement.register(adapter: hci0.id, completion: $0) }

        // Power off and on: reported as adapter changes.
        try complete("power off") { peripheral.setPowered(false, adapter: hci0.id, completion: $0) }
        wait("powered off") { peripheral.tree.adapter(at: hci0.path)?.powered == false }
        try complete("power on") { peripheral.setPowered(true, adapter: hci0.id, completion: $0) }
        wait("powered on") { peripheral.tree.adapter(at: hci0.path)?.powered == true }

        bus.stopBluezoo()
        wait("bluetoothd gone") { vanished == 1 }
        XCTAssertEqual(Set(removedAdapters.map(\.description)), ["/org/bluez/hci0", "/org/bluez/hci1"])
        XCTAssertTrue(peripheral.tree.adapters.isEmpty)
        XCTAssertFalse(peripheral.isAvailable)
        XCTAssertTrue(unregistered)
        XCTAssertTrue(released)
        XCTAssertNil(application.registration)
        var failure: BlueZError?
        peripheral.startDiscovery(adapter: hci0.id) { if case .failure(let error) = $0 { failure = error } }
        wait("call without bluetoothd fails") { failure != nil }
        XCTAssertEqual(failure?.kind, .serviceUnknown)

        try bus.startBluezoo()
        wait("bluetoothd back with its adapters") { appeared == 2 && peripheral.tree.adapters.count == 2 }
        _ = try complete("RegisterApplication again") { application.register(adapter: hci0.id, completion: $0) }
        XCTAssertNotNil(application.registration)
    }
}
