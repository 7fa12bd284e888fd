import RelayDBus
import RelayProtocol
import RelayRuntime
import XCTest

@testable import RelayBlueZ

final class RequestAndAdvertisementTests: XCTestCase {
    let serviceUUID = BluetoothUUID("6B5C4A86-CFB7-4031-98EB-09DF5E2543F0")!

    func testGattRequestReadsTypedOptions() {
        let request = GattRequest(options: [
            "device": .objectPath("/org/bluez/hci0/dev_00_AA_01_01_00_01"), "mtu": .uint16(185),
            "offset": .uint16(4), "link": .string("LE"), "type": .string("command"),
        ])
        XCTAssertEqual(request.device, "/org/bluez/hci0/dev_00_AA_01_01_00_01")
        XCTAssertEqual(request.deviceAddress, BluetoothAddress("00:AA:01:01:00:01"))
        XCTAssertEqual(request.mtu, MTU(185)!)
        XCTAssertEqual(request.mtu?.attributeValueLimit, 182)
        XCTAssertEqual(request.offset, 4)
        XCTAssertEqual(request.link, "LE")
        XCTAssertEqual(request.writeType, .command)
        XCTAssertFalse(request.prepareAuthorize)
    }

    func testGattRequestIgnoresMissingAndMistypedOptions() {
        let request = GattRequest(options: ["mtu": .uint32(185), "offset": .string("4"), "type": .string("odd")])
        XCTAssertNil(request.device)
        XCTAssertNil(request.deviceAddress)
        XCTAssertNil(request.mtu)
        XCTAssertEqual(request.offset, 0)
        XCTAssertNil(request.writeType)
    }

    func testDiscoveryFilterEncodesOnlySetFields() throws {
        let empty = DiscoveryFilter().dbusValue
        XCTAssertEqual(empty.signature, .dictionary(key: .string, value: .variant))
        XCTAssertEqual(empty.asDictionary?.count, 0)
        let filter = DiscoveryFilter(
            uuids: [serviceUUID], transport: .le, rssi: -80, duplicateData: true,
            pattern: "sam")
        let entries = try XCTUnwrap(filter.dbusValue.asDictionary)
        XCTAssertEqual(Set(entries.keys), ["UUIDs", "Transport", "RSSI", "DuplicateData", "Pattern"])
        XCTAssertEqual(entries["UUIDs"]?.asStrings, ["6b5c4a86-cfb7-4031-98eb-09df5e2543f0"])
        XCTAssertEqual(entries["Transport"]?.asString, "le")
        XCTAssertEqual(entries["RSSI"]?.asInt16, -80)
        XCTAssertEqual(entries["DuplicateData"]?.asBool, true)
        XCTAssertEqual(entries["Pattern"]?.asString, "sam")
        XCTAssertNoThrow(try filter.dbusValue.validate())
    }

    func testAdvertisementPropertiesAndDiscoverableDefault() throws {
        let peripheral = AdvertisementData(serviceUUIDs: [serviceUUID], localName: "sample")
        let properties = peripheral.properties
        XCTAssertEqual(properties["Type"]?.asString, "peripheral")
        XCTAssertEqual(properties["ServiceUUIDs"]?.asStrings, [serviceUUID.description])
        XCTAssertEqual(properties["LocalName"]?.asString, "sample")
        XCTAssertEqual(properties["Discoverable"]?.asBool, true)
        XCTAssertNil(properties["Includes"])
        XCTAssertNil(properties["MinInterval"], "bluetoothd's own interval unless one is asked for")
        var quick = peripheral
        quick.interval = AdvertisingInterval(milliseconds: 100)
        XCTAssertEqual(quick.properties["MinInterval"], .uint32(100))
        XCTAssertEqual(quick.properties["MaxInterval"], .uint32(100))
        XCTAssertNil(properties["Duration"], "bluetoothd's own rotation unless one is asked for")
        quick.rotation = 1
        XCTAssertEqual(quick.properties["Duration"], .uint16(1))
        XCTAssertNil(AdvertisingInterval(milliseconds: 19))
        XCTAssertNil(AdvertisingInterval(milliseconds: 10_241))
        XCTAssertNotNil(AdvertisingInterval(milliseconds: 10_240))
        let broadcast = AdvertisementData(kind: .broadcast, manufacturerData: [0x05f1: [1, 2]])
        XCTAssertNil(broadcast.properties["Discoverable"])
        XCTAssertEqual(broadcast.properties["ManufacturerData"]?.asUInt16KeyedDictionary?[0x05f1]?.asBytes, [1, 2])
        for value in properties.values { XCTAssertNoThrow(try value.validate()) }
    }

    func testAdvertisementLengthAndNameLimit() {
        // Flags (3) + one 128-bit UUID list (18) + name (2 + n) must fit in 31 bytes.
        var data = AdvertisementData(serviceUUIDs: [serviceUUID], localName: "sample")
        XCTAssertEqual(data.advertisingDataLength, 3 + 18 + 8)
        XCTAssertTrue(data.fitsLegacyAdvertisement)
        XCTAssertEqual(data.maximumLocalNameLength, 8)
        data.localName = "12345678"
        XCTAssertTrue(data.fitsLegacyAdvertisement)
        data.localName = "123456789"
        XCTAssertFalse(data.fitsLegacyAdvertisement)
        let short = AdvertisementData(serviceUUIDs: [BluetoothUUID(uint16: 0x180d), BluetoothUUID(uint16: 0x180f)])
        XCTAssertEqual(short.advertisingDataLength, 3 + 2 + 4)
    }
}
