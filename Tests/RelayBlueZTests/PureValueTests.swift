import RelayDBus
import RelayProtocol
import RelayRuntime
import XCTest

@testable import RelayBlueZ

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
