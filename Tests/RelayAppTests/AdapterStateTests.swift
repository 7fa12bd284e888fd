import RelayApp
import RelayBlueZ
import RelayCLI
import RelayProtocol
import XCTest

/// The one-line adapter explanations say "Bluetooth is ..." once, then the cause and the fix,
/// the same on both programs.
final class AdapterStateTests: XCTestCase {
    func testProblemSentencesNameTheStateOnceThenTheCause() {
        XCTAssertEqual(
            AdapterState.unavailable(.bluetoothdNotRunning).problemSentence,
            "Bluetooth is not available: bluetoothd is not running (nobody owns org.bluez on the system bus): "
                + "start it, e.g. systemctl start bluetooth (Debian package: bluez)")
        XCTAssertEqual(
            AdapterState.unavailable(.accessDenied).problemSentence,
            "Bluetooth is not permitted: the system bus policy does not let this user talk to bluetoothd: run as root "
                + "or as a member of the 'bluetooth' group (policy: /etc/dbus-1/system.d/bluetooth.conf)")
        XCTAssertEqual(
            AdapterState.poweredOff.problemSentence,
            "Bluetooth is powered off: switch it on with 'bluetoothctl power on' (or 'rfkill unblock bluetooth')")
        XCTAssertNil(AdapterState.poweredOn.problemSentence)
        XCTAssertEqual(AdapterState.unknown.problemSentence, "the adapter is not known yet (waiting for bluetoothd)")
    }

    func testWordsAreTheOriginalAppsManagerStates() {
        XCTAssertEqual(AdapterState.poweredOn.word, "poweredOn")
        XCTAssertEqual(AdapterState.poweredOff.word, "poweredOff")
        XCTAssertEqual(AdapterState.unavailable(.noAdapter).word, "notAvailable")
        XCTAssertEqual(AdapterState.unavailable(.accessDenied).word, "notPermitted")
        XCTAssertEqual(AdapterState.unknown.word, "unknown")
    }

    func testStateEventLinesAndFields() {
        let hci1 = AdapterInfo(name: "hci1", address: BluetoothAddress("00:AA:01:01:00:01"))
        XCTAssertEqual(
            AdapterState.poweredOn.humanDescription(adapter: hci1), "Bluetooth is powered on (hci1 00:AA:01:01:00:01)")
        XCTAssertEqual(
            AdapterState.unavailable(.noAdapter).humanDescription(adapter: nil),
            "Bluetooth is not available: bluetoothd has no adapter: plug one in or load its driver, then check with 'bluetoothctl list'"
        )
        let console = Console(format: .json, output: { _ in }, clock: { "T" })
        XCTAssertEqual(
            console.jsonLine(name: "state", fields: AdapterState.poweredOn.eventFields(adapter: hci1)),
            #"{"event":"state","time":"T","state":"poweredOn","adapter":"hci1","address":"00:AA:01:01:00:01"}"#)
        let missing = AdapterState.unavailable(.notFound(.name("hci7"), available: ["hci0 00:AA:01:00:00:00"]))
        XCTAssertEqual(
            console.jsonLine(name: "state", fields: missing.eventFields(adapter: nil)),
            #"{"event":"state","time":"T","state":"notAvailable","detail":"adapter hci7 not found (bluetoothd has: hci0 00:AA:01:00:00:00)"}"#
        )
    }

    func testAdapterChoiceParsesNamesAndAddresses() throws {
        XCTAssertEqual(try AdapterChoice(parsing: "hci0"), .name("hci0"))
        XCTAssertEqual(try AdapterChoice(parsing: "hci12"), .name("hci12"))
        XCTAssertEqual(
            try AdapterChoice(parsing: "00:aa:01:00:00:00"), .address(BluetoothAddress("00:AA:01:00:00:00")!))
        for bad in ["wlan0", "hci", "hcix", "hci123456", "00:AA", ""] {
            XCTAssertThrowsError(try AdapterChoice(parsing: bad), bad) { error in
                XCTAssertTrue("\(error)".hasPrefix("--adapter: "), "\(error)")
            }
        }
    }
}
