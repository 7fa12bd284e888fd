import RelayDBus
import RelayProtocol
import RelayRuntime
import XCTest

@testable import RelayBlueZ

/// The object tree and snapshots, fed with BlueZ-shaped data and no bus.
final class ObjectTreeTests: XCTestCase {
    let serviceUUID = BluetoothUUID("6B5C4A86-CFB7-4031-98EB-09DF5E2543F0")!
    let writeUUID = BluetoothUUID("4551ABAE-CE14-4F9E-B31A-E61FC372E480")!

    func adapterInterfaces(_ address: String, powered: Bool) -> InterfaceProperties {
        [
            BlueZInterface.adapter: [
                "Address": .string(address), "AddressType": .string("public"), "Name": .string("box"),
                "Alias": .string("box"), "Powered": .boolean(powered), "Discovering": .boolean(false),
                "UUIDs": .strings(["0x1800"]), "Roles": .strings(["central", "peripheral"]),
            ],
            BlueZInterface.gattManager: [:],
            BlueZInterface.advertisingManager: [
                "ActiveInstances": .byte(0), "SupportedInstances": .byte(5),
                "SupportedIncludes": .strings(["tx-power", "local-name"]),
                "SupportedCapabilities": .stringDict(["MaxAdvLen": .byte(31)]),
            ],
        ]
    }

    func deviceInterfaces(rssi: Int16) -> InterfaceProperties {
        [
            BlueZInterface.device: [
                "Address": .string("00:00:00:22:22:22"), "Adapter": .objectPath("/org/bluez/hci0"),
                "Name": .string("sample"), "RSSI": .int16(rssi), "UUIDs": .strings([serviceUUID.description]),
                "ServiceData": .stringDict(["180d": .bytes([1, 2])]),
                "ManufacturerData": .uint16Dict([0x004c: .bytes([9])]),
                "Connected": .boolean(false), "ServicesResolved": .boolean(false),
            ]
        ]
    }

    func testLoadOrdersAdditionsAndBuildsSnapshots() throws {
        var tree = BlueZObjectTree()
        let events = tree.load([
            "/org/bluez/hci0/dev_00_00_00_22_22_22": deviceInterfaces(rssi: -40),
            "/org/bluez/hci0": adapterInterfaces("00:00:00:11:11:11", powered: true),
            "/org/bluez": ["org.bluez.AgentManager1": [:]],
        ])
        XCTAssertEqual(events.count, 2)
        guard case .adapter(.added(let adapter)) = events.first, case .device(.added(let device)) = events.last else {
            return XCTFail("unexpected events \(events)")
        }
        XCTAssertEqual(adapter.name, "hci0")
        XCTAssertEqual(adapter.address, BluetoothAddress("00:00:00:11:11:11"))
        XCTAssertTrue(adapter.powered)
        XCTAssertTrue(adapter.hasGattManager)
        XCTAssertEqual(adapter.uuids, [BluetoothUUID(uint16: 0x1800)])
        XCTAssertEqual(adapter.advertising?.supportedInstances, 5)
        XCTAssertEqual(adapter.advertising?.maximumAdvertisingDataLength, 31)
        XCTAssertTrue(adapter.matches("hci0"))
        XCTAssertTrue(adapter.matches("00:00:00:11:11:11"))
        XCTAssertFalse(adapter.matches("hci1"))
        XCTAssertEqual(device.name, "sample")
        XCTAssertEqual(device.rssi, -40)
        XCTAssertEqual(device.uuids, [serviceUUID])
        XCTAssertEqual(device.serviceData, [BluetoothUUID(uint16: 0x180d): [1, 2]])
        XCTAssertEqual(device.manufacturerData, [0x004c: [9]])
        XCTAssertEqual(tree.adapter(matching: "00:00:00:11:11:11")?.path, "/org/bluez/hci0")
        XCTAssertEqual(tree.devices(on: "/org/bluez/hci0").map(\.path), [device.path])
        XCTAssertEqual(tree.devices(on: "/org/bluez/hci1").count, 0)
    }

    func testPropertiesChangedEmitsTypedChangesAndInvalidates() throws {
        var tree = BlueZObjectTree()
        _ = tree.load([
            "/org/bluez/hci0": adapterInterfaces("00:00:00:11:11:11", powered: false),
            "/org/bluez/hci0/dev_00_00_00_22_22_22": deviceInterfaces(rssi: -70),
        ])
        let powered = tree.propertiesChanged(
            "/org/bluez/hci0", interface: BlueZInterface.adapter,
            changed: ["Powered": .boolean(true)], invalidated: [])
        guard case .adapter(.changed(let adapter, let names))? = powered.first else { return XCTFail("\(powered)") }
        XCTAssertTrue(adapter.powered)
        XCTAssertEqual(names, ["Powered"])
        let rssi = tree.propertiesChanged(
            "/org/bluez/hci0/dev_00_00_00_22_22_22", interface: BlueZInterface.device,
            changed: ["RSSI": .int16(-50)], invalidated: ["Name"])
        guard case .device(.changed(let device, let changed))? = rssi.first else { return XCTFail("\(rssi)") }
        XCTAssertEqual(device.rssi, -50)
        XCTAssertNil(device.name)
        XCTAssertEqual(changed, ["RSSI", "Name"])
        // Unknown objects and untracked interfaces are ignored.
        XCTAssertTrue(
            tree.propertiesChanged(
                "/org/bluez/hci9", interface: BlueZInterface.adapter,
                changed: ["Powered": .boolean(true)], invalidated: []
            ).isEmpty)
        XCTAssertTrue(
            tree.propertiesChanged(
                "/org/bluez/hci0", interface: "org.bluez.Media1",
                changed: ["X": .boolean(true)], invalidated: []
            ).isEmpty)
    }

    func testGattObjectsValueNotificationsAndRemoval() throws {
        var tree = BlueZObjectTree()
        let device: ObjectPath = "/org/bluez/hci0/dev_00_00_00_22_22_22"
        _ = tree.load([
            "/org/bluez/hci0": adapterInterfaces("00:00:00:11:11:11", powered: true),
            device: deviceInterfaces(rssi: -70),
        ])
        let servicePath: ObjectPath = "/org/bluez/hci0/dev_00_00_00_22_22_22/service0001"
        let charPath: ObjectPath = "/org/bluez/hci0/dev_00_00_00_22_22_22/service0001/char0002"
        _ = tree.interfacesAdded(
            servicePath,
            [
                BlueZInterface.gattService: [
                    "UUID": .string(serviceUUID.description), "Primary": .boolean(true), "Device": .objectPath(device),
                ]
            ])
        let added = tree.interfacesAdded(
            charPath,
            [
                BlueZInterface.gattCharacteristic: [
                    "UUID": .string(writeUUID.description), "Service": .objectPath(servicePath),
                    "Flags": .strings(["read", "write-without-response"]), "MTU": .uint16(185),
                    "WriteAcquired": .boolean(false),
                ]
            ])
        guard case .gatt(.characteristicAdded(let characteristic))? = added.first else { return XCTFail("\(added)") }
        XCTAssertEqual(characteristic.flags, [.read, .writeWithoutResponse])
        XCTAssertEqual(characteristic.mtu, MTU(185)!)
        XCTAssertEqual(characteristic.writeAcquired, false)
        XCTAssertNil(characteristic.notifyAcquired)
        XCTAssertEqual(tree.service(serviceUUID, of: device)?.path, servicePath)
        XCTAssertEqual(tree.characteristic(writeUUID, in: servicePath)?.path, charPath)

        let notified = tree.propertiesChanged(
            charPath, interface: BlueZInterface.gattCharacteristic,
            changed: ["Value": .bytes([1, 0, 0, 0]), "Notifying": .boolean(true)],
            invalidated: [])
        XCTAssertEqual(notified.count, 2)
        guard case .gatt(.valueChanged(_, let value))? = notified.first,
            case .gatt(.characteristicChanged(let changed, let names))? = notified.last
        else { return XCTFail("\(notified)") }
        XCTAssertEqual(value, [1, 0, 0, 0])
        XCTAssertEqual(names, ["Notifying"])
        XCTAssertEqual(changed.notifying, true)

        let cleared = tree.clear()
        let kinds = cleared.map { event -> String in
            switch event {
            case .gatt(.characteristicRemoved): return "char"
            case .gatt(.serviceRemoved): return "service"
            case .device(.removed(_, let address)): return "device \(address!)"
            case .adapter(.removed): return "adapter"
            default: return "other"
            }
        }
        XCTAssertEqual(kinds, ["char", "service", "device 00:00:00:22:22:22", "adapter"])
        XCTAssertTrue(tree.objects.isEmpty)
    }

    func testMalformedObjectsAreReportedNotTrapped() {
        var tree = BlueZObjectTree()
        let events = tree.load(["/org/bluez/hci0": [BlueZInterface.adapter: ["Address": .uint32(7)]]])
        guard case .problem(let error)? = events.first else { return XCTFail("\(events)") }
        XCTAssertEqual(error.kind, .unexpectedReply)
        XCTAssertTrue(tree.adapters.isEmpty)
    }

    func testReloadRemovesVanishedObjectsAndReportsChanges() {
        var tree = BlueZObjectTree()
        _ = tree.load([
            "/org/bluez/hci0": adapterInterfaces("00:00:00:11:11:11", powered: false),
            "/org/bluez/hci1": adapterInterfaces("00:00:00:22:22:22", powered: false),
        ])
        let events = tree.load(["/org/bluez/hci0": adapterInterfaces("00:00:00:11:11:11", powered: true)])
        var removed: [AdapterID] = []
        var poweredNow = false
        for event in events {
            if case .adapter(.removed(let path)) = event { removed.append(path) }
            if case .adapter(.changed(let adapter, let names)) = event, names.contains("Powered") {
                poweredNow = adapter.powered
            }
        }
        XCTAssertEqual(removed.map(\.description), ["/org/bluez/hci1"])
        XCTAssertTrue(poweredNow)
        XCTAssertEqual(tree.adapters.map(\.name), ["hci0"])
    }
}
