import RelayBlueZ
import RelayProtocol
import XCTest

@testable import relay_central

final class AdapterStateTests: XCTestCase {
    func testReportsEachAdapterStateOnceInTheOriginalWords() {
        var harness = SessionHarness()
        let on = harness.feed(.adapter(.poweredOn, SessionHarness.adapter))
        XCTAssertEqual(SessionHarness.events(on), [.state(.poweredOn, adapter: SessionHarness.adapter)])
        XCTAssertEqual(harness.feed(.adapter(.poweredOn, SessionHarness.adapter)), [])
        let off = harness.feed(.adapter(.poweredOff, SessionHarness.adapter))
        XCTAssertEqual(SessionHarness.events(off).first, .state(.poweredOff, adapter: SessionHarness.adapter))
        let gone = harness.feed(.adapter(.unavailable(.bluetoothdNotRunning), nil))
        guard case .state(let state, _)? = SessionHarness.events(gone).first, state.word == "notAvailable" else {
            return XCTFail("expected notAvailable, got \(gone)")
        }
        XCTAssertTrue(state.problem?.contains("bluetoothd") ?? false)
        let denied = harness.feed(.adapter(.unavailable(.accessDenied), nil))
        XCTAssertEqual(SessionHarness.events(denied).first?.fields.first?.1, .string("notPermitted"))
    }

    func testCommandsNeedingTheAdapterFailWithTheFixWhenItIsOff() {
        var harness = SessionHarness()
        harness.feed(.adapter(.poweredOff, SessionHarness.adapter))
        let (token, actions) = harness.command(.scan)
        guard case .failure(let message)? = SessionHarness.outcome(of: token, in: actions) else {
            return XCTFail("scan should fail while powered off")
        }
        XCTAssertTrue(message.contains("switch it on"), message)
        XCTAssertFalse(actions.contains(.startRelayDiscovery))
        let connect = harness.command(.connect(.index(0)))
        XCTAssertNotNil(SessionHarness.outcome(of: connect.token, in: connect.actions))
        XCTAssertFalse(connect.actions.contains { if case .connect = $0 { true } else { false } })
    }
}

final class ScanningTests: XCTestCase {
    func testScanStartsFilteredDiscoveryAndFinishesWhenStarted() {
        var harness = SessionHarness()
        harness.powerOn()
        let (token, actions) = harness.command(.scan)
        XCTAssertEqual(actions, [.startRelayDiscovery])
        let started = harness.feed(.discoveryStarted)
        XCTAssertEqual(SessionHarness.eventNames(started), ["scanning"])
        XCTAssertTrue(started.contains(.startTimer(.scan, after: 10)))
        XCTAssertEqual(SessionHarness.outcome(of: token, in: started), .success)
    }

    func testCandidatesAreListedOnceEachWithIndexAddressAndRSSI() {
        var harness = SessionHarness()
        harness.powerOn()
        harness.command(.scan)
        harness.feed(.discoveryStarted)
        let first = harness.feed(.deviceUpdated(SessionHarness.device(rssi: -60)))
        XCTAssertEqual(
            SessionHarness.events(first),
            [
                .discovered(
                    Candidate(
                        index: 0, id: DeviceID(path: "/org/bluez/hci1/dev_00_AA_01_00_00_00")!,
                        address: SessionHarness.peerAddress, name: "sample", rssi: -60))
            ])
        // The same device again (RSSI change): no duplicate, RSSI updated.
        XCTAssertEqual(harness.feed(.deviceUpdated(SessionHarness.device(rssi: -40))), [])
        XCTAssertEqual(harness.session.scanning.candidates.first?.rssi, -40)
        // Another name, or no relay service: not candidates.
        let other = BluetoothAddress("11:22:33:44:55:66")!
        XCTAssertEqual(harness.feed(.deviceUpdated(SessionHarness.device(other, name: "phone"))), [])
        XCTAssertEqual(harness.feed(.deviceUpdated(SessionHarness.device(other, relay: false))), [])
        XCTAssertEqual(harness.feed(.deviceUpdated(SessionHarness.device(other, name: nil))), [])
        // Once its name arrives (scan response), it becomes candidate 1.
        let named = harness.feed(.deviceUpdated(SessionHarness.device(other)))
        guard case .discovered(let candidate)? = SessionHarness.events(named).first else {
            return XCTFail("expected a discovered event")
        }
        XCTAssertEqual(candidate.index, 1)
        XCTAssertEqual(candidate.address, other)
        let list = harness.command(.list)
        guard case .list(let listed)? = SessionHarness.events(list.actions).first else { return XCTFail() }
        XCTAssertEqual(listed.map(\.index), [0, 1])
    }

    func testNameOptionChangesWhatIsACandidate() {
        var settings = CentralSettings()
        settings.name = "lab-3"
        var harness = SessionHarness(settings: settings)
        harness.powerOn()
        harness.command(.scan)
        harness.feed(.discoveryStarted)
        XCTAssertEqual(harness.feed(.deviceUpdated(SessionHarness.device(name: "sample"))), [])
        XCTAssertEqual(
            SessionHarness.eventNames(harness.feed(.deviceUpdated(SessionHarness.device(name: "lab-3")))),
            ["discovered"])
    }

    func testScanEndsByItselfWithNothingFound() {
        var settings = CentralSettings()
        settings.scanTimeout = 3
        var harness = SessionHarness(settings: settings)
        harness.powerOn()
        harness.command(.scan)
        XCTAssertTrue(harness.feed(.discoveryStarted).contains(.startTimer(.scan, after: 3)))
        let ended = harness.feed(.timerFired(.scan))
        XCTAssertTrue(ended.contains(.stopDiscovery))
        XCTAssertEqual(SessionHarness.events(ended), [.scanStopped(reason: .timeout, found: 0)])
        XCTAssertTrue(SessionHarness.events(ended)[0].humanDescription.contains("nothing found"))
        XCTAssertEqual(harness.session.scanning.state, .idle)
        // Devices seen after the scan ended are not listed.
        XCTAssertEqual(harness.feed(.deviceUpdated(SessionHarness.device())), [])
    }

    func testScanStopStopsDiscovery() {
        var harness = SessionHarness()
        harness.scanAndFind()
        let (token, actions) = harness.command(.scanStop)
        XCTAssertTrue(actions.contains(.stopDiscovery))
        XCTAssertTrue(actions.contains(.cancelTimer(.scan)))
        XCTAssertEqual(SessionHarness.events(actions), [.scanStopped(reason: .requested, found: 1)])
        XCTAssertEqual(SessionHarness.outcome(of: token, in: actions), .success)
        // The list survives so `connect 0` still works.
        XCTAssertEqual(harness.session.scanning.candidates.count, 1)
    }

    func testDiscoveryFailureFailsTheScanCommand() {
        var harness = SessionHarness()
        harness.powerOn()
        let (token, _) = harness.command(.scan)
        let failed = harness.feed(
            .discoveryFailed(BlueZError(name: "org.bluez.Error.NotReady", message: "Resource Not Ready")))
        guard case .failure(let message)? = SessionHarness.outcome(of: token, in: failed) else { return XCTFail() }
        XCTAssertTrue(message.contains("NotReady"), message)
        XCTAssertEqual(harness.session.scanning.state, .idle)
    }

    func testInProgressDiscoveryCountsAsStarted() {
        var harness = SessionHarness()
        harness.powerOn()
        let (token, _) = harness.command(.scan)
        let started = harness.feed(.discoveryFailed(BlueZError(name: "org.bluez.Error.InProgress", message: "")))
        XCTAssertEqual(SessionHarness.outcome(of: token, in: started), .success)
        XCTAssertEqual(harness.session.scanning.state, .active(.listing))
    }

    func testConnectAtStartUpByNameScansAndConnects() {
        var settings = CentralSettings()
        settings.startupTarget = .name("sample")
        var harness = SessionHarness(settings: settings)
        let on = harness.feed(.adapter(.poweredOn, SessionHarness.adapter))
        XCTAssertTrue(on.contains(.startRelayDiscovery))
        XCTAssertEqual(SessionHarness.eventNames(harness.feed(.discoveryStarted)), ["scanning"])
        XCTAssertEqual(harness.feed(.deviceUpdated(SessionHarness.device(name: "other"))), [])
        let found = harness.feed(.deviceUpdated(SessionHarness.device()))
        XCTAssertTrue(found.contains(.stopDiscovery))
        XCTAssertTrue(found.contains(.connect(SessionHarness.peerID, timeout: 20)))
        harness.establish()
        guard case .ready = harness.session.link else { return XCTFail("not ready: \(harness.session.link)") }
    }

    func testConnectAtStartUpByAddressReportsNothingFoundOnTimeOut() {
        var settings = CentralSettings()
        settings.startupTarget = .address(BluetoothAddress("00:AA:01:00:00:09")!)
        var harness = SessionHarness(settings: settings)
        harness.powerOn()
        XCTAssertTrue(harness.feed(.discoveryStarted).contains(.startTimer(.scan, after: 10)))
        XCTAssertEqual(
            harness.feed(.deviceUpdated(SessionHarness.device())).filter {
                if case .connect = $0 { true } else { false }
            }, [])
        let ended = harness.feed(.timerFired(.scan))
        let messages = SessionHarness.events(ended).compactMap {
            if case .error(let problem) = $0 { problem.description } else { nil }
        }
        XCTAssertEqual(messages.count, 1)
        XCTAssertTrue(messages[0].contains("nothing found"), messages[0])
        XCTAssertNil(harness.session.automatic.target)
    }
}

final class NothingFoundTests: XCTestCase {
    func testNothingFoundNamesWhatWasSeenInstead() {
        var harness = SessionHarness()
        harness.powerOn()
        harness.command(.scan)
        harness.feed(.discoveryStarted)
        harness.feed(.deviceUpdated(SessionHarness.device(name: nil)))
        harness.feed(
            .deviceUpdated(SessionHarness.device(BluetoothAddress("11:22:33:44:55:66")!, name: "phone", relay: false)))
        let ended = harness.feed(.timerFired(.scan))
        guard case .scanStopped(.timeout, 0, let others)? = SessionHarness.events(ended).first else {
            return XCTFail("\(ended)")
        }
        XCTAssertEqual(
            others,
            [
                "00:AA:01:00:00:00 (no name yet)", "11:22:33:44:55:66 'phone' (not named 'sample', no relay service)",
            ])
        XCTAssertTrue(SessionHarness.events(ended)[0].humanDescription.contains("seen but not candidates"))
    }
}
