import RelayBlueZ
import RelayProtocol
import XCTest

@testable import relay_central

/// Fault 3 (issue 8): after the peripheral's adapter is power-cycled, `--reconnect` may connect
/// before relay-peripheral has registered its GATT application again.
/// It used to give up for good (`... is not a relay peripheral`).
final class ReconnectNotReadyTests: XCTestCase {
    static let battery = RemoteCharacteristic(
        id: CharacteristicID(path: "/c")!, uuid: BluetoothUUID("2a19")!, serviceUUID: BluetoothUUID("180f")!,
        flags: [.read])

    /// Connected and ready with `--reconnect`, then the link drops and the reconnect connects again
    /// up to the characteristics check.
    private func reconnectToServicesResolved(_ harness: inout SessionHarness, alreadyRemoved: Bool = false) {
        if !alreadyRemoved { harness.feed(.deviceRemoved(SessionHarness.peerID)) }
        harness.feed(.timerFired(.reconnect))  // dialled again after `relinkPause`
        harness.feed(.discoveryStarted)
        let found = harness.feed(.deviceUpdated(SessionHarness.device()))
        XCTAssertTrue(found.contains(.connect(SessionHarness.peerID, timeout: 20)))
        harness.feed(.connectFinished(SessionHarness.peerID, nil))
        let resolved = harness.feed(.deviceUpdated(SessionHarness.device(connected: true, resolved: true)))
        XCTAssertEqual(resolved, [.findCharacteristics(SessionHarness.peerID)])
    }

    func testAMissingRelayServiceWhileReconnectingIsRetriedWithBackoffUntilReady() {
        var settings = CentralSettings()
        settings.reconnect = true
        var harness = SessionHarness(settings: settings)
        harness.connectReady()
        reconnectToServicesResolved(&harness)

        var delays: [Double] = []
        for attempt in 0..<5 {
            let missing = harness.feed(.characteristicsFound(SessionHarness.peerID, [Self.battery]))
            XCTAssertEqual(SessionHarness.eventNames(missing), [], "attempt \(attempt): no error line, no give-up")
            XCTAssertTrue(missing.contains(.disconnect(SessionHarness.peerID)))
            XCTAssertNotNil(harness.session.automatic.target, "the reconnect is still wanted")
            let gone = harness.disconnectAnsweredThenDown()
            XCTAssertEqual(SessionHarness.eventNames(gone), ["disconnected"], "one line per attempt")
            guard case .disconnected(_, let reason)? = SessionHarness.events(gone).first else { return XCTFail() }
            XCTAssertTrue(reason.contains("not ready yet"), reason)
            XCTAssertTrue(reason.contains("retrying"), reason)
            XCTAssertFalse(gone.contains(.startRelayDiscovery), "the retry waits for the back-off")
            let timers = gone.compactMap { action -> Double? in
                if case .program(.startTimer(.reconnect, let seconds)) = action { return seconds }
                return nil
            }
            XCTAssertEqual(timers.count, 1, "\(gone)")
            delays += timers
            XCTAssertTrue(harness.feed(.timerFired(.reconnect)).contains(.startRelayDiscovery))
            reconnectToServicesResolved(&harness, alreadyRemoved: true)
        }
        XCTAssertEqual(delays, [1, 2, 4, 5, 5])

        // relay-peripheral is registered again: the link comes up and the back-off starts over.
        let found = harness.feed(.characteristicsFound(SessionHarness.peerID, SessionHarness.relayCharacteristics))
        XCTAssertEqual(found, [.startNotify(SessionHarness.notifyID), .acquireWrite(SessionHarness.writeID)])
        harness.feed(.notifyStarted(nil))
        let ready = harness.feed(.writeAcquired(MTU(517)!))
        XCTAssertEqual(SessionHarness.eventNames(ready), ["ready"])
        XCTAssertNil(harness.session.automatic.target)
        XCTAssertEqual(harness.session.automatic.retries, 0)
    }

    func testAMissingCharacteristicWhileReconnectingIsAlsoNotReadyYet() {
        var settings = CentralSettings()
        settings.reconnect = true
        var harness = SessionHarness(settings: settings)
        harness.connectReady()
        reconnectToServicesResolved(&harness)
        let onlyWrite = [SessionHarness.relayCharacteristics[0]]
        let missing = harness.feed(.characteristicsFound(SessionHarness.peerID, onlyWrite))
        XCTAssertEqual(SessionHarness.eventNames(missing), [])
        let gone = harness.disconnectAnsweredThenDown()
        XCTAssertTrue(gone.contains(.startTimer(.reconnect, after: 1)), "\(gone)")
    }

    func testAnExplicitConnectToANonRelayDeviceStillFailsAtOnceEvenWithReconnect() {
        var settings = CentralSettings()
        settings.reconnect = true
        var harness = SessionHarness(settings: settings)
        harness.connectReady()
        harness.command(.disconnect)
        harness.disconnectAnsweredThenDown()
        // The same address, chosen by the user this time, now without the relay service.
        let (token, issued) = harness.command(.connect(.address(SessionHarness.peerAddress)))
        XCTAssertTrue(issued.contains(.connect(SessionHarness.peerID, timeout: 20)))
        harness.feed(.connectFinished(SessionHarness.peerID, nil))
        harness.feed(.deviceUpdated(SessionHarness.device(connected: true, resolved: true)))
        let refused = harness.feed(.characteristicsFound(SessionHarness.peerID, [Self.battery]))
        guard case .failure(let message)? = SessionHarness.outcome(of: token, in: refused) else { return XCTFail() }
        XCTAssertTrue(message.contains("not a relay peripheral"), message)
        XCTAssertEqual(SessionHarness.eventNames(refused), ["error"])
        let gone = harness.disconnectAnsweredThenDown()
        guard case .disconnected(_, let reason)? = SessionHarness.events(gone).first else { return XCTFail() }
        XCTAssertEqual(reason, "not a relay peripheral")
        XCTAssertFalse(gone.contains { if case .program(.startTimer(.reconnect, _)) = $0 { true } else { false } })
        XCTAssertFalse(gone.contains(.startRelayDiscovery))
        XCTAssertNil(harness.session.automatic.target)
    }

    func testReconnectingToADeviceThatNeverWasARelayPeripheralGivesUp() {
        var settings = CentralSettings()
        settings.reconnect = true
        var harness = SessionHarness(settings: settings)
        harness.connectReady()
        harness.session.automatic.ready(BluetoothAddress("00:AA:01:00:00:09")!)  // another device was the last ready
        reconnectToServicesResolved(&harness)
        let refused = harness.feed(.characteristicsFound(SessionHarness.peerID, [Self.battery]))
        XCTAssertEqual(SessionHarness.eventNames(refused), ["error"])
        XCTAssertNil(harness.session.automatic.target)
    }
}
