import RelayProtocol
import XCTest

final class BluetoothUUIDTests: XCTestCase {
    func testParsesFullFormCaseInsensitivelyToLowercase() throws {
        let uuid = try XCTUnwrap(BluetoothUUID("6B5C4A86-CFB7-4031-98EB-09DF5E2543F0"))
        XCTAssertEqual(uuid.description, "6b5c4a86-cfb7-4031-98eb-09df5e2543f0")
        XCTAssertEqual(uuid, BluetoothUUID("6b5c4a86-cfb7-4031-98eb-09df5e2543f0"))
        XCTAssertEqual(uuid.bytes.first, 0x6b)
        XCTAssertEqual(uuid.bytes.last, 0xf0)
        XCTAssertNil(uuid.uint16)
        XCTAssertEqual(uuid.shortDescription, uuid.description)
    }

    func testExpands16And32BitForms() throws {
        let heartRate = try XCTUnwrap(BluetoothUUID("180D"))
        XCTAssertEqual(heartRate.description, "0000180d-0000-1000-8000-00805f9b34fb")
        XCTAssertEqual(heartRate, BluetoothUUID("0x180d"))
        XCTAssertEqual(heartRate, BluetoothUUID(uint16: 0x180d))
        XCTAssertEqual(heartRate, BluetoothUUID("0000180d"))
        XCTAssertEqual(heartRate.uint16, 0x180d)
        XCTAssertEqual(heartRate.shortDescription, "0x180d")
        let wide = try XCTUnwrap(BluetoothUUID("12345678"))
        XCTAssertEqual(wide.description, "12345678-0000-1000-8000-00805f9b34fb")
        XCTAssertNil(wide.uint16)
        XCTAssertTrue(wide.isBaseDerived)
    }

    func testRejectsMalformedStrings() {
        for bad in [
            "", "18", "180", "18000", "xyz1", "6B5C4A86CFB7403198EB09DF5E2543F0",
            "6B5C4A86-CFB7-4031-98EB-09DF5E2543F", "6B5C4A86-CFB7-4031-98EB-09DF5E2543F00",
            "6B5C4A8-6CFB7-4031-98EB-09DF5E2543F0", "6B5C4A86-CFB7-4031-98EB-09DF5E2543FG",
            "+B5C4A86-CFB7-4031-98EB-09DF5E2543F0",
        ] {
            XCTAssertNil(BluetoothUUID(bad), bad)
        }
        XCTAssertNil(BluetoothUUID(bytes: [1, 2, 3]))
    }

    func testRoundTripsThroughBytesAndOrders() throws {
        let a = try XCTUnwrap(BluetoothUUID("4551ABAE-CE14-4F9E-B31A-E61FC372E480"))
        let b = try XCTUnwrap(BluetoothUUID("DFB13451-1740-4F8A-B0F0-7C20D79E8BDF"))
        XCTAssertEqual(BluetoothUUID(bytes: a.bytes), a)
        XCTAssertEqual(BluetoothUUID(a.description), a)
        XCTAssertLessThan(a, b)
        XCTAssertEqual(Set([a, b, a]).count, 2)
    }
}

final class BluetoothAddressTests: XCTestCase {
    func testParsesAndFormatsUppercase() throws {
        let address = try XCTUnwrap(BluetoothAddress("00:aa:01:0b:Cd:ef"))
        XCTAssertEqual(address.description, "00:AA:01:0B:CD:EF")
        XCTAssertEqual(address.pathComponent, "00_AA_01_0B_CD_EF")
        XCTAssertEqual(address.bytes, [0x00, 0xaa, 0x01, 0x0b, 0xcd, 0xef])
        XCTAssertEqual(BluetoothAddress("00_AA_01_0B_CD_EF"), address)
    }

    func testRejectsMalformedAddresses() {
        for bad in [
            "", "00:11:22:33:44", "00:11:22:33:44:55:66", "0:11:22:33:44:55", "00:11:22:33:44:5G",
            "001122334455", "00:11:22:33:44:555", "hci0",
        ] {
            XCTAssertNil(BluetoothAddress(bad), bad)
        }
        XCTAssertNil(BluetoothAddress(bytes: [1, 2, 3, 4, 5]))
    }
}
