import RelayBlueZ
import RelayProtocol
import XCTest

@testable import relay_central

/// `--notify-path socket` (the default): the session subscribes through `AcquireNotify` and falls back to
/// `StartNotify`; the events and `ready` are those of the signal path.
final class NotifyPathTests: XCTestCase {
    private static func socketSettings() -> CentralSettings {
        var settings = CentralSettings()
        settings.notifyPath = .socket
        return settings
    }

    private static let peer = Peer(id: SessionHarness.peerID, address: SessionHarness.peerAddress, name: "sample")

    /// Connects up to the characteristics and returns the subscribing actions.
    private static func subscribing(_ harness: inout SessionHarness) -> [CentralAction] {
        harness.scanAndFind()
        harness.command(.connect(.index(0)))
        harness.feed(.deviceUpdated(SessionHarness.device(connected: true, resolved: true)))
        return harness.feed(.characteristicsFound(SessionHarness.peerID, SessionHarness.relayCharacteristics))
    }

    func testSocketPathAcquiresTheNotifySocketAndReportsIt() {
        var harness = SessionHarness(settings: Self.socketSettings())
        let found = Self.subscribing(&harness)
        XCTAssertEqual(found, [.acquireNotify(SessionHarness.notifyID), .acquireWrite(SessionHarness.writeID)])
        XCTAssertEqual(harness.feed(.notifyAcquired), [])
        let ready = harness.feed(.writeAcquired(MTU(517)!))
        XCTAssertEqual(
            SessionHarness.events(ready),
            [.ready(Self.peer, mtu: MTU(517)!, path: .socket, notify: .socket, protocolVersion: 1)])
        XCTAssertEqual(harness.session.readyLink?.notifyVia, .socket)
    }

    func testSignalPathIsTheDefault() {
        XCTAssertEqual(CentralSettings().notifyPath, .signal)
        XCTAssertEqual(CentralSettings(options: CentralOptions()).notifyPath, .signal)
    }

    func testSignalPathNeverAcquires() {
        var settings = CentralSettings()
        settings.notifyPath = .signal
        var harness = SessionHarness(settings: settings)
        let found = Self.subscribing(&harness)
        XCTAssertEqual(found, [.startNotify(SessionHarness.notifyID), .acquireWrite(SessionHarness.writeID)])
        XCTAssertFalse(harness.log.contains(.acquireNotify(SessionHarness.notifyID)))
    }

    func testRefusedAcquireNotifyFallsBackToStartNotify() {
        var harness = SessionHarness(settings: Self.socketSettings())
        _ = Self.subscribing(&harness)
        let refused = harness.feed(.notifyAcquireFailed(BlueZError(name: "org.bluez.Error.NotSupported", message: "")))
        XCTAssertEqual(refused, [.startNotify(SessionHarness.notifyID)])
        harness.feed(.notifyStarted(nil))
        let ready = harness.feed(.writeAcquired(MTU(247)!))
        XCTAssertEqual(
            SessionHarness.events(ready),
            [.ready(Self.peer, mtu: MTU(247)!, path: .socket, notify: .signal, protocolVersion: 1)])
    }

    func testFailedFallbackAbandonsTheLinkLikeTheSignalPath() {
        var harness = SessionHarness(settings: Self.socketSettings())
        _ = Self.subscribing(&harness)
        harness.feed(.notifyAcquireFailed(BlueZError(name: "org.bluez.Error.NotSupported", message: "")))
        let failed = harness.feed(.notifyStarted(BlueZError(name: "org.bluez.Error.Failed", message: "no")))
        XCTAssertTrue(failed.contains(.disconnect(SessionHarness.peerID)), "\(failed)")
        XCTAssertTrue(SessionHarness.eventNames(failed).contains("error"))
    }

    func testNotificationsThroughTheSocketAreCountersAsUsual() {
        var harness = SessionHarness(settings: Self.socketSettings())
        _ = Self.subscribing(&harness)
        harness.feed(.notifyAcquired)
        harness.feed(.writeAcquired(MTU(517)!))
        let counter = harness.feed(.notification([7, 0, 0, 0]))
        XCTAssertEqual(SessionHarness.events(counter), [SessionHarness.counterEvent(7)])
    }

    func testASocketClosedUnderAReadyLinkSubscribesAgainWithStartNotify() {
        var harness = SessionHarness(settings: Self.socketSettings())
        _ = Self.subscribing(&harness)
        harness.feed(.notifyAcquired)
        harness.feed(.writeAcquired(MTU(517)!))
        XCTAssertEqual(harness.feed(.notifySocketClosed), [.startNotify(SessionHarness.notifyID)])
        XCTAssertEqual(harness.session.readyLink?.notifyVia, .signal)
        XCTAssertEqual(harness.feed(.notifySocketClosed), [], "only once: the signal path has no socket")
    }

    func testASocketClosedWhileSubscribingWaitsForStartNotify() {
        var harness = SessionHarness(settings: Self.socketSettings())
        _ = Self.subscribing(&harness)
        harness.feed(.notifyAcquired)
        XCTAssertEqual(harness.feed(.notifySocketClosed), [.startNotify(SessionHarness.notifyID)])
        XCTAssertEqual(SessionHarness.events(harness.feed(.writeAcquired(MTU(517)!))), [], "not ready: unsubscribed")
        let ready = harness.feed(.notifyStarted(nil))
        XCTAssertEqual(
            SessionHarness.events(ready),
            [.ready(Self.peer, mtu: MTU(517)!, path: .socket, notify: .signal, protocolVersion: 1)])
    }

    func testDisconnectReleasesBothSockets() {
        var harness = SessionHarness(settings: Self.socketSettings())
        _ = Self.subscribing(&harness)
        harness.feed(.notifyAcquired)
        harness.feed(.writeAcquired(MTU(517)!))
        let lost = harness.feed(.deviceUpdated(SessionHarness.device(connected: false, resolved: false)))
        XCTAssertTrue(lost.contains(.releaseSockets), "\(lost)")
        XCTAssertEqual(harness.feed(.notifySocketClosed), [], "a closed socket after the link went is nothing new")
    }
}
