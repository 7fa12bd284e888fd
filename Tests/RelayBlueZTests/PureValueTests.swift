import RelayDBus
import RelayProtocol
import RelayRuntime
import XCTest

@testable import RelayBlueZ

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

final class CharacteristicFlagsTests: XCTestCase {
    func testRoundTripsEveryDocumentedFlag() {
        for (flag, name) in CharacteristicFlags.names {
            XCTAssertEqual(CharacteristicFlags(bluezStrings: [name]), flag, name)
            XCTAssertEqual(flag.bluezStrings, [name])
        }
        let all = CharacteristicFlags(bluezStrings: CharacteristicFlags.names.map(\.name))
        XCTAssertEqual(all.bluezStrings.count, CharacteristicFlags.names.count)
        XCTAssertEqual(Set(CharacteristicFlags.names.map(\.flag.rawValue)).count, CharacteristicFlags.names.count)
    }

    func testRelayFlagsAndUnknownStrings() {
        let parsed = CharacteristicFlags.parse(["write-without-response", "read", "x-future"])
        XCTAssertEqual(parsed.flags, [.read, .writeWithoutResponse])
        XCTAssertEqual(parsed.unknown, ["x-future"])
        XCTAssertEqual(parsed.flags.bluezStrings, ["read", "write-without-response"])
        XCTAssertEqual(CharacteristicFlags([.notify, .read]).description, "read, notify")
        XCTAssertFalse(parsed.flags.contains(.write))
    }
}

final class BlueZErrorTests: XCTestCase {
    func testMapsBlueZNamesAndKeepsMessage() {
        let cases: [(String, BlueZError.Kind)] = [
            ("NotReady", .notReady), ("InProgress", .inProgress), ("NotPermitted", .notPermitted),
            ("NotAuthorized", .notAuthorized), ("Failed", .failed), ("AlreadyExists", .alreadyExists),
            ("DoesNotExist", .doesNotExist), ("InvalidArguments", .invalidArguments),
            ("InvalidLength", .invalidLength), ("NotSupported", .notSupported),
            ("AlreadyConnected", .alreadyConnected), ("NotAvailable", .notAvailable),
            ("InvalidOffset", .invalidOffset), ("NotConnected", .notConnected),
        ]
        for (short, kind) in cases {
            let error = BlueZError(name: "org.bluez.Error." + short, message: "because")
            XCTAssertEqual(error.kind, kind, short)
            XCTAssertEqual(error.message, "because")
            XCTAssertEqual(error.name, "org.bluez.Error." + short)
            XCTAssertTrue(error.description.hasPrefix(short + ": because"), error.description)
        }
    }

    func testUnknownNamesBecomeOtherAndKeepTheName() {
        let error = BlueZError(name: "org.bluez.Error.Brandnew", message: "m")
        XCTAssertEqual(error.kind, .other)
        XCTAssertEqual(error.name, "org.bluez.Error.Brandnew")
        XCTAssertEqual(error.description, "Brandnew: m")
        XCTAssertEqual(BlueZError(name: "com.example.Oops", message: "").kind, .other)
    }

    func testDBusNamesGetHints() {
        let unknown = BlueZError(name: "org.freedesktop.DBus.Error.ServiceUnknown", message: "x")
        XCTAssertEqual(unknown.kind, .serviceUnknown)
        XCTAssertTrue(unknown.description.contains("bluetoothd is not running"))
        let denied = BlueZError(name: "org.freedesktop.DBus.Error.AccessDenied", message: "x")
        XCTAssertEqual(denied.kind, .accessDenied)
        XCTAssertTrue(denied.description.contains("bluetooth"))
        XCTAssertEqual(BlueZError(name: "org.freedesktop.DBus.Error.NoReply", message: "").kind, .noReply)
        XCTAssertEqual(BlueZError(.gone, "device removed").name, "relay.Error.Gone")
        XCTAssertTrue(
            BlueZError(name: "org.bluez.Error.NotReady", message: "").description.hasPrefix("NotReady (power"))
    }
}
