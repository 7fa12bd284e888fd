import RelayApp
import RelayBlueZ
import XCTest

@testable import relay_central

/// A `connect` command whose attempt ends unanswered (Linux gives an LE connection attempt 4 s;
/// a peripheral taking a class dialling at once takes one central a second or two) dials again
/// while the command's time lasts, and says so.
final class RedialTests: XCTestCase {
    private static let abort = BlueZError(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local")

    func testADeviceBluetoothdForgetsWhileDialledIsSoughtAgainAndConnected() {
        var harness = SessionHarness()
        harness.scanAndFind()
        let (token, _) = harness.command(.connect(.index(0)))
        let forgotten = harness.feed(.deviceRemoved(SessionHarness.peerID), at: 4.1)
        guard case .redial(let peer, let reason, let remaining)? = SessionHarness.events(forgotten).first else {
            return XCTFail("\(forgotten)")
        }
        XCTAssertEqual(peer.address, SessionHarness.peerAddress)
        XCTAssertEqual(reason, .forgotten)
        XCTAssertEqual(remaining, 15.9, accuracy: 0.001)
        XCTAssertTrue(forgotten.contains(.startRelayDiscovery), "bluetoothd forgot it: seek the address")
        XCTAssertNil(SessionHarness.outcome(of: token, in: forgotten), "the command still waits")
        harness.feed(.discoveryStarted)
        let found = harness.feed(.deviceUpdated(SessionHarness.device()))
        XCTAssertTrue(found.contains(.connect(SessionHarness.peerID, timeout: 20)))
        harness.establish()
        XCTAssertEqual(SessionHarness.outcome(of: token, in: harness.log), .success)
        XCTAssertFalse(SessionHarness.eventNames(harness.log).contains("error"))
    }

    /// bluetoothd answers `Connect` and forgets the device, in either order: one `redial`, the
    /// address sought, the device dialled when the scan hears it.
    func testAnAttemptEndedByLinuxIsOneRedialWhicheverComesFirst() {
        for answerFirst in [true, false] {
            var harness = SessionHarness()
            harness.scanAndFind()
            let (token, _) = harness.command(.connect(.index(0)))
            let first =
                answerFirst
                ? harness.feed(.connectFinished(SessionHarness.peerID, Self.abort), at: 4)
                : harness.feed(.deviceRemoved(SessionHarness.peerID), at: 4)
            let second =
                answerFirst
                ? harness.feed(.deviceRemoved(SessionHarness.peerID))
                : harness.feed(.connectFinished(SessionHarness.peerID, Self.abort))
            XCTAssertEqual(SessionHarness.eventNames(first + second), ["redial"], "answer first: \(answerFirst)")
            XCTAssertTrue(first.contains(.startRelayDiscovery), "answer first: \(answerFirst)")
            XCTAssertFalse((first + second).contains { if case .connect = $0 { true } else { false } })
            harness.feed(.discoveryStarted)
            let found = harness.feed(.deviceUpdated(SessionHarness.device()))
            XCTAssertTrue(found.contains(.connect(SessionHarness.peerID, timeout: 20)), "answer first: \(answerFirst)")
            harness.establish()
            XCTAssertEqual(SessionHarness.outcome(of: token, in: harness.log), .success)
        }
    }

    func testTheCommandFailsOnceItsTimeIsUp() {
        var harness = SessionHarness()
        harness.scanAndFind()
        let (token, _) = harness.command(.connect(.index(0)))
        XCTAssertNotNil(harness.session.connectUntil)
        var at = 0.0
        for _ in 0..<4 {
            at += 4
            let again = harness.feed(.connectFinished(SessionHarness.peerID, Self.abort), at: at)
            XCTAssertEqual(SessionHarness.eventNames(again), ["redial"], "at \(at) s")
            harness.feed(.discoveryStarted)
            harness.feed(.deviceUpdated(SessionHarness.device()))
            harness.command(.scanStop)
        }
        let last = harness.feed(.deviceRemoved(SessionHarness.peerID), at: 19.5)
        guard case .failure(let message)? = SessionHarness.outcome(of: token, in: last) else { return XCTFail() }
        XCTAssertTrue(message.contains("went away"), message)
        XCTAssertEqual(harness.session.link, .idle)
        XCTAssertNil(harness.session.connectUntil)
    }

    /// Once `connected` was said, a link that ends is a lost connection, not an unanswered attempt.
    func testAnAttemptThatConnectedIsNotDialledAgain() {
        var harness = SessionHarness()
        harness.scanAndFind()
        let (token, _) = harness.command(.connect(.index(0)))
        harness.feed(.deviceUpdated(SessionHarness.device(connected: true)), at: 1)
        let failed = harness.feed(
            .connectFinished(
                SessionHarness.peerID,
                BlueZError(name: "org.bluez.Error.Failed", message: "Software caused connection abort")),
            at: 2)
        XCTAssertFalse(SessionHarness.eventNames(failed).contains("redial"))
        XCTAssertNotNil(SessionHarness.outcome(of: token, in: failed))
    }

    /// A `connect` typed while `--reconnect` was seeking is a command like any other: it dials again.
    func testAConnectTypedWhileReconnectingDialsAgain() {
        var settings = CentralSettings()
        settings.reconnect = true
        var harness = SessionHarness(settings: settings)
        harness.connectReady()
        harness.feed(.deviceUpdated(SessionHarness.device(connected: false)), at: 1)
        XCTAssertTrue(harness.session.automatic.persistent, "seeking the peripheral again")
        let (token, _) = harness.command(.connect(.address(SessionHarness.peerAddress)))
        XCTAssertFalse(harness.session.automatic.persistent)
        harness.feed(.discoveryStarted)
        harness.feed(.deviceUpdated(SessionHarness.device()))
        let again = harness.feed(.deviceRemoved(SessionHarness.peerID), at: 5)
        XCTAssertEqual(SessionHarness.eventNames(again).first, "redial")
        XCTAssertNil(SessionHarness.outcome(of: token, in: harness.log))
    }

    func testARefusalOrALocalProblemIsNotDialledAgain() {
        for error in [
            BlueZError(name: "org.bluez.Error.InProgress", message: "In Progress"),
            BlueZError(name: "org.bluez.Error.NotReady", message: "Resource Not Ready"),
            BlueZError(name: "org.bluez.Error.Failed", message: "Host is down"),
        ] {
            var harness = SessionHarness()
            harness.scanAndFind()
            let (token, _) = harness.command(.connect(.index(0)))
            let failed = harness.feed(.connectFinished(SessionHarness.peerID, error), at: 1)
            XCTAssertFalse(SessionHarness.eventNames(failed).contains("redial"), error.description)
            XCTAssertNotNil(SessionHarness.outcome(of: token, in: failed), error.description)
        }
    }

    func testTheEventSaysWhyAndHowLong() {
        let peer = Peer(id: SessionHarness.peerID, address: SessionHarness.peerAddress, name: "sample")
        let event = CentralEvent.redial(peer, reason: .forgotten, remaining: 15.94)
        XCTAssertEqual(event.name, "redial")
        XCTAssertTrue(CentralEvent.names.contains("redial"))
        let fields = Dictionary(uniqueKeysWithValues: event.fields)
        XCTAssertEqual(fields["address"], .string("00:AA:01:00:00:00"))
        XCTAssertEqual(fields["remaining"], .number(15.9))
        XCTAssertTrue(event.humanDescription.contains("dialling again, for up to 16 s more"), event.humanDescription)
        XCTAssertTrue(event.humanDescription.contains("busy taking other centrals"), event.humanDescription)
    }
}

/// `connect N` of a candidate bluetoothd has forgotten since the scan seeks it by its address
/// (it used to call `Connect` on the object that was gone).
final class ConnectForgottenCandidateTests: XCTestCase {
    func testConnectToAForgottenCandidateSeeksItsAddress() {
        var harness = SessionHarness()
        harness.scanAndFind()
        harness.command(.scanStop)
        harness.feed(.deviceRemoved(SessionHarness.peerID), at: 40)
        let (token, actions) = harness.command(.connect(.index(0)))
        XCTAssertTrue(actions.contains(.startRelayDiscovery), "\(actions)")
        XCTAssertFalse(actions.contains { if case .connect = $0 { return true } else { return false } })
        harness.feed(.discoveryStarted)
        let found = harness.feed(.deviceUpdated(SessionHarness.device()))
        XCTAssertTrue(found.contains(.connect(SessionHarness.peerID, timeout: 20)))
        harness.establish()
        XCTAssertEqual(SessionHarness.outcome(of: token, in: harness.log), .success)
    }
}
