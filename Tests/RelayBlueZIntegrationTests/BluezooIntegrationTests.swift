import RelayDBus
import RelayProtocol
import RelayRuntime
import XCTest

@testable import RelayBlueZ

/// The model end to end against bluezoo on a private bus: one adapter serves (application +
/// advertisement), the other discovers, connects, resolves, subscribes, writes and reads.
final class BluezooIntegrationTests: BluezooTestCase {
    func testPeripheralAndCentralExchangeWritesNotificationsAndReads() throws {
        let peripheral = try startedClient()
        var discovered: [DeviceSnapshot] = []
        var values: [[UInt8]] = []
        let central = try startedClient { event in
            if case .device(.added(let device)) = event { discovered.append(device) }
            if case .gatt(.valueChanged(let characteristic, let value)) = event,
                characteristic.uuid == self.notifyUUID
            {
                values.append(value)
            }
        }
        let hci0 = try XCTUnwrap(peripheral.tree.adapter(matching: "hci0"))
        XCTAssertTrue(hci0.hasGattManager)
        XCTAssertNotNil(hci0.advertising)

        // As relay-peripheral serves it: a write is an event, and reads answer what the owner sets.
        let application = relayApplication(peripheral, keepsWrites: false)
        var serverEvents: [GattServerEvent] = []
        application.onEvent = { serverEvents.append($0) }
        let appRegistration = try complete("RegisterApplication") {
            application.register(adapter: hci0.id, completion: $0)
        }
        let data = AdvertisementData(serviceUUIDs: [serviceUUID], localName: "sample")
        XCTAssertTrue(data.fitsLegacyAdvertisement)
        let advertisement = LEAdvertisement(client: peripheral, data: data)
        let advertisementRegistration = try complete("RegisterAdvertisement") {
            advertisement.register(adapter: hci0.id, completion: $0)
        }
        XCTAssertTrue(advertisement.isRegistered)
        wait("advertising manager counts it") {
            peripheral.tree.adapter(at: hci0.path)?.advertising?.activeInstances == 1
        }

        let device = try discoverAndConnect(central) { central.tree.devices(on: "/org/bluez/hci1") }
        XCTAssertTrue(discovered.contains { $0.address == peripheralAddress }, "device added event")
        XCTAssertTrue(device.connected)
        let write = try XCTUnwrap(central.characteristic(writeUUID, service: serviceUUID, device: device.path))
        let notify = try XCTUnwrap(central.characteristic(notifyUUID, service: serviceUUID, device: device.path))
        XCTAssertEqual(write.flags, [.read, .writeWithoutResponse])
        XCTAssertEqual(notify.flags, [.read, .notify])

        try complete("StartNotify") { central.startNotify(characteristic: notify.path, completion: $0) }
        wait("server sees the subscription") { application.isNotifying(notifyUUID) }

        try complete("WriteValue command") {
            central.writeValue([1, 0, 0, 0], characteristic: write.path, type: .command, completion: $0)
        }
        wait("server sees the write") {
            serverEvents.contains {
                if case .written = $0 { return true }
                return false
            }
        }
        guard
            case .written(let uuid, let value, let request)? = serverEvents.first(where: {
                if case .written = $0 { return true }
                return false
            })
        else { return XCTFail("no write event") }
        XCTAssertEqual(uuid, writeUUID)
        XCTAssertEqual(value, [1, 0, 0, 0])
        XCTAssertEqual(request.deviceAddress, centralAddress)
        XCTAssertEqual(request.writeType, .command)
        XCTAssertNotNil(request.mtu, "BlueZ passes the link MTU with each write")
        XCTAssertEqual(application.value(of: writeUUID), [], "a write does not become what reads answer")
        application.setValue([1, 0, 0, 0], for: writeUUID)

        // Another bus client listening for our PropertiesChanged must not see the values.
        let listener = try bus.connect(loop)
        var overheard: [[UInt8]] = []
        let subscription = listener.subscribe(
            MatchRule(
                pathNamespace: application.root, interface: BlueZInterface.properties,
                member: "PropertiesChanged")
        ) { signal in
            if let value = signal.arguments.dropFirst().first?.asDictionary?["Value"]?.asBytes {
                overheard.append(value)
            }
        }
        XCTAssertEqual(application.notify([7, 0, 0, 0], on: notifyUUID), .sent)
        XCTAssertEqual(application.notify([8, 0, 0, 0], on: notifyUUID), .sent)
        wait("central receives both notifications") { values.count >= 2 }
        XCTAssertEqual(values, [[7, 0, 0, 0], [8, 0, 0, 0]])
        XCTAssertEqual(overheard, [])
        // Control: broadcast notifications are overheard, so the check above can fail.
        application.broadcastsNotifications = true
        XCTAssertEqual(application.notify([0, 1, 0, 0], on: notifyUUID), .sent)
        wait("broadcast overheard") { overheard == [[0, 1, 0, 0]] }
        wait("central receives the broadcast one too") { values.count == 3 }
        application.broadcastsNotifications = false
        subscription.cancel()

        let readWrite = try complete("ReadValue") { central.readValue(characteristic: write.path, completion: $0) }
        XCTAssertEqual(readWrite, [1, 0, 0, 0])
        let readNotify = try complete("ReadValue offset") {
            central.readValue(characteristic: notify.path, offset: 1, completion: $0)
        }
        XCTAssertEqual(readNotify, [1, 0, 0], "the last notified value [0, 1, 0, 0] from offset 1")

        try complete("StopNotify") { central.stopNotify(characteristic: notify.path, completion: $0) }
        wait("server sees the unsubscription") { !application.isNotifying(notifyUUID) }
        XCTAssertEqual(application.notify([9, 0, 0, 0], on: notifyUUID), .notSubscribed)

        try complete("Disconnect") { central.disconnect(device: device.path, completion: $0) }
        wait("disconnected") { central.tree.device(at: device.path)?.connected == false }

        try complete("UnregisterAdvertisement") { advertisementRegistration.unregister(completion: $0) }
        XCTAssertFalse(advertisement.isRegistered)
        try complete("UnregisterApplication") { appRegistration.unregister(completion: $0) }
        XCTAssertNil(application.registration)
        wait("advertisement gone") { peripheral.tree.adapter(at: hci0.path)?.advertising?.activeInstances == 0 }
    }

    func testForeignClientsAreRefusedWithAccessDenied() throws {
        let peripheral = try startedClient()
        let hci0 = try XCTUnwrap(peripheral.tree.adapter(matching: "hci0"))
        let application = relayApplication(peripheral)
        var written = 0
        application.onEvent = { if case .written = $0 { written += 1 } }
        _ = try complete("RegisterApplication") { application.register(adapter: hci0.id, completion: $0) }

        let intruder = try bus.connect(loop)
        let charPath: ObjectPath = "/org/relay/gatt/service0/char0"
        var writeResult: Result<[DBusValue], DBusError>?
        intruder.call(
            destination: peripheral.connection.uniqueName, path: charPath,
            interface: BlueZInterface.gattCharacteristic, method: "WriteValue",
            arguments: [.bytes([6, 6, 6, 6]), .stringDict([:])]
        ) { writeResult = $0 }
        var readResult: Result<[DBusValue], DBusError>?
        intruder.call(
            destination: peripheral.connection.uniqueName, path: charPath,
            interface: BlueZInterface.gattCharacteristic, method: "ReadValue",
            arguments: [.stringDict([:])]
        ) { readResult = $0 }
        var getResult: Result<[DBusValue], DBusError>?
        intruder.call(
            destination: peripheral.connection.uniqueName, path: charPath,
            interface: BlueZInterface.properties, method: "Get",
            arguments: [.string(BlueZInterface.gattCharacteristic), .string("Value")]
        ) { getResult = $0 }
        wait("intruder replies") { writeResult != nil && readResult != nil && getResult != nil }
        for result in [writeResult, readResult, getResult] {
            guard case .failure(.remote(let error))? = result else {
                return XCTFail("not refused: \(String(describing: result))")
            }
            XCTAssertEqual(error.name, DBusRemoteError.Names.accessDenied)
        }
        XCTAssertEqual(written, 0)
        XCTAssertEqual(application.value(of: writeUUID), [])
    }
}
