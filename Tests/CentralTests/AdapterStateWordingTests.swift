import XCTest

@testable import relay_central

/// The one-line adapter explanations say "Bluetooth is ..." once, then the cause or the fix.
final class AdapterStateWordingTests: XCTestCase {
    func testProblemSentencesNameTheStateOnceThenTheCause() {
        XCTAssertEqual(
            AdapterState.notAvailable("bluetoothd is not running").problemSentence,
            "Bluetooth is not available: bluetoothd is not running")
        XCTAssertEqual(
            AdapterState.notPermitted("join the bluetooth group").problemSentence,
            "Bluetooth is not permitted: join the bluetooth group")
        XCTAssertEqual(
            AdapterState.poweredOff.problemSentence, "Bluetooth is powered off: power it on (bluetoothctl power on)")
        XCTAssertNil(AdapterState.poweredOn.problemSentence)
    }

    func testStateEventDoesNotRepeatTheState() {
        let event = CentralEvent.state(.notAvailable("bluetoothd is not running"), adapter: nil)
        XCTAssertEqual(event.humanDescription, "Bluetooth is not available: bluetoothd is not running")
    }
}
