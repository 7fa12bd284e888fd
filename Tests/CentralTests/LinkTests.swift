import RelayBlueZ
import RelayProtocol
import XCTest

@testable import relay_central

final class ConnectTests: XCTestCase {
    func testConnectWalksTheArticleFlowToReady() {
        var harness = SessionHarness()
        harness.scanAndFind()
        let (token, issued) = harness.command(.connect(.index(0)))
        XCTAssertTrue(issued.contains(.stopDiscovery), "scanning stops once connecting")
        XCTAssertTrue(issued.contains(.connect(SessionHarness.peerID, timeout: 20)))
        XCTAssertEqual(SessionHarness.eventNames(issued), ["scan-stopped", "connecting"])
        XCTAssertNil(SessionHarness.outcome(of: token, in: issued))

        let connected = harness.feed(.deviceUpdated(SessionHarness.device(connected: true)))
        XCTAssertEqual(SessionHarness.eventNames(connected), ["connected"])
        XCTAssertEqual(harness.feed(.connectFinished(SessionHarness.peerID, nil)), [])
        let resolved = harness.feed(.deviceUpdated(SessionHarness.device(connected: true, resolved: true)))
        XCTAssertEqual(resolved, [.findCharacteristics(SessionHarness.peerID)])
        let found = harness.feed(.characteristicsFound(SessionHarness.peerID, SessionHarness.relayCharacteristics))
        XCTAssertEqual(found, [.startNotify(SessionHarness.notifyID), .acquireWrite(SessionHarness.writeID)])
        XCTAssertEqual(harness.feed(.notifyStarted(nil)), [])
        let ready = harness.feed(.writeAcquired(MTU(517)!))
        let peer = Peer(id: SessionHarness.peerID, address: SessionHarness.peerAddress, name: "sample")
        XCTAssertEqual(
            SessionHarness.events(ready),
            [.ready(peer, mtu: MTU(517)!, path: .socket, notify: .signal, protocolVersion: 1)])
        XCTAssertEqual(SessionHarness.outcome(of: token, in: ready), .success)
        XCTAssertEqual(harness.session.writing.chunker.mtu, MTU(517)!)
    }

    func testWithoutAcquireWriteTheMTUIsReadAfterServicesResolvedAndWriteValueIsUsed() {
        var harness = SessionHarness()
        harness.scanAndFind()
        harness.command(.connect(.index(0)))
        harness.feed(.deviceUpdated(SessionHarness.device(connected: true, resolved: true)))
        harness.feed(.characteristicsFound(SessionHarness.peerID, SessionHarness.relayCharacteristics))
        harness.feed(.notifyStarted(nil))
        let fallback = harness.feed(.writeAcquireFailed(BlueZError(name: "org.bluez.Error.NotSupported", message: "")))
        XCTAssertEqual(fallback, [.readMTU(SessionHarness.writeID)])
        let ready = harness.feed(.mtuRead(MTU(247)!))
        guard case .ready(_, let mtu, let path, _, _, _)? = SessionHarness.events(ready).first else {
            return XCTFail("\(ready)")
        }
        XCTAssertEqual(mtu, MTU(247)!)
        XCTAssertEqual(path, .writeValue)
        let write = harness.command(.write(value: nil))
        XCTAssertEqual(write.actions, [.send([0, 0, 0, 0], on: .gatt(SessionHarness.writeID, .writeValue))])
    }

    func testWritePathWriteValueNeverAcquiresTheSocket() {
        var settings = CentralSettings()
        settings.writePath = .writeValue
        var harness = SessionHarness(settings: settings)
        harness.scanAndFind()
        harness.command(.connect(.index(0)))
        harness.feed(.deviceUpdated(SessionHarness.device(connected: true, resolved: true)))
        let found = harness.feed(.characteristicsFound(SessionHarness.peerID, SessionHarness.relayCharacteristics))
        XCTAssertEqual(found, [.startNotify(SessionHarness.notifyID), .readMTU(SessionHarness.writeID)])
        harness.feed(.notifyStarted(nil))
        let ready = harness.feed(.mtuRead(MTU(517)!))
        guard case .ready(_, let mtu, let path, _, _, _)? = SessionHarness.events(ready).first else {
            return XCTFail("\(ready)")
        }
        XCTAssertEqual(mtu, MTU(517)!)
        XCTAssertEqual(path, .writeValue)
        let write = harness.command(.write(value: nil))
        XCTAssertEqual(write.actions, [.send([0, 0, 0, 0], on: .gatt(SessionHarness.writeID, .writeValue))])
    }

    func testALaterMTUChangeIsFollowed() {
        var harness = SessionHarness()
        harness.connectReady(mtu: 23)
        let changed = harness.feed(.mtuChanged(SessionHarness.notifyID, MTU(185)!))
        XCTAssertEqual(SessionHarness.events(changed), [.mtu(MTU(185)!)])
        XCTAssertEqual(harness.session.writing.chunker.mtu, MTU(185)!)
        XCTAssertEqual(harness.feed(.mtuChanged(SessionHarness.notifyID, MTU(185)!)), [])
    }

    func testADeviceWithoutTheRelayServiceIsRefusedAndDisconnected() {
        var harness = SessionHarness()
        harness.scanAndFind()
        let (token, _) = harness.command(.connect(.index(0)))
        harness.feed(.deviceUpdated(SessionHarness.device(connected: true, resolved: true)))
        let battery = RemoteCharacteristic(
            id: CharacteristicID(path: "/c")!, uuid: BluetoothUUID("2a19")!, serviceUUID: BluetoothUUID("180f")!,
            flags: [.read])
        let refused = harness.feed(.characteristicsFound(SessionHarness.peerID, [battery]))
        guard case .failure(let message)? = SessionHarness.outcome(of: token, in: refused) else { return XCTFail() }
        XCTAssertTrue(message.contains("not a relay peripheral"), message)
        XCTAssertTrue(refused.contains(.disconnect(SessionHarness.peerID)))
        let gone = harness.disconnectAnsweredThenDown()
        guard case .disconnected(_, let reason)? = SessionHarness.events(gone).first else { return XCTFail() }
        XCTAssertEqual(reason, "not a relay peripheral")
        XCTAssertEqual(harness.session.link, .idle)
    }

    func testWrongFlagsAreNamed() {
        var flagsCases: [(CharacteristicFlags, CharacteristicFlags, String)] = []
        flagsCases.append(([.read, .write], [.read, .notify], "write-without-response"))
        flagsCases.append(([.read, .writeWithoutResponse], [.read], "does not notify"))
        for (writeFlags, notifyFlags, expected) in flagsCases {
            var harness = SessionHarness()
            harness.scanAndFind()
            let (token, _) = harness.command(.connect(.index(0)))
            harness.feed(.deviceUpdated(SessionHarness.device(connected: true, resolved: true)))
            var characteristics = SessionHarness.relayCharacteristics
            characteristics[0].flags = writeFlags
            characteristics[1].flags = notifyFlags
            let refused = harness.feed(.characteristicsFound(SessionHarness.peerID, characteristics))
            guard case .failure(let message)? = SessionHarness.outcome(of: token, in: refused) else { return XCTFail() }
            XCTAssertTrue(message.contains(expected), message)
        }
    }

    func testConnectFailureNamesCauseAndFix() {
        var harness = SessionHarness()
        harness.scanAndFind()
        let (token, _) = harness.command(.connect(.index(0)))
        let failed = harness.feed(
            .connectFinished(
                SessionHarness.peerID, BlueZError(name: "org.bluez.Error.InProgress", message: "In Progress")))
        guard case .failure(let message)? = SessionHarness.outcome(of: token, in: failed) else { return XCTFail() }
        XCTAssertTrue(message.contains("InProgress"), message)
        XCTAssertTrue(message.contains("retry"), message)
        XCTAssertEqual(harness.session.link, .idle)
    }

    func testConnectToAnUnknownIndexOrWhileConnectedFails() {
        var harness = SessionHarness()
        harness.scanAndFind()
        let missing = harness.command(.connect(.index(3)))
        XCTAssertNotNil(SessionHarness.outcome(of: missing.token, in: missing.actions))
        harness.command(.connect(.index(0)))
        harness.establish()
        let again = harness.command(.connect(.index(0)))
        guard case .failure(let message)? = SessionHarness.outcome(of: again.token, in: again.actions) else {
            return XCTFail()
        }
        XCTAssertTrue(message.contains("disconnect first"), message)
    }

    func testConnectToAnUnknownAddressScansForIt() {
        var harness = SessionHarness()
        harness.powerOn()
        let (token, actions) = harness.command(.connect(.address(SessionHarness.peerAddress)))
        XCTAssertTrue(actions.contains(.startRelayDiscovery))
        harness.feed(.discoveryStarted)
        let found = harness.feed(.deviceUpdated(SessionHarness.device()))
        XCTAssertTrue(found.contains(.connect(SessionHarness.peerID, timeout: 20)))
        harness.establish()
        XCTAssertEqual(SessionHarness.outcome(of: token, in: harness.log), .success)
    }

    func testConnectToAKnownAddressConnectsAtOnce() {
        var harness = SessionHarness()
        harness.scanAndFind()
        harness.command(.scanStop)
        let (_, actions) = harness.command(.connect(.address(SessionHarness.peerAddress)))
        XCTAssertTrue(actions.contains(.connect(SessionHarness.peerID, timeout: 20)))
        XCTAssertFalse(actions.contains(.startRelayDiscovery))
    }
}

final class DisconnectTests: XCTestCase {
    func testRequestedDisconnectIsReportedAndNotReconnected() {
        var settings = CentralSettings()
        settings.reconnect = true
        var harness = SessionHarness(settings: settings)
        harness.connectReady()
        let (token, actions) = harness.command(.disconnect)
        XCTAssertTrue(actions.contains(.disconnect(SessionHarness.peerID)))
        let done = harness.feed(.deviceUpdated(SessionHarness.device(connected: false)))
        guard case .disconnected(_, let reason)? = SessionHarness.events(done).first else { return XCTFail("\(done)") }
        XCTAssertEqual(reason, "disconnected on request")
        XCTAssertEqual(SessionHarness.outcome(of: token, in: done), .success)
        XCTAssertTrue(done.contains(.releaseSockets))
        XCTAssertFalse(done.contains(.startRelayDiscovery))
        XCTAssertEqual(harness.feed(.disconnectFinished(SessionHarness.peerID, nil)), [])
    }

    func testDisconnectWhenNotConnectedFails() {
        var harness = SessionHarness()
        harness.powerOn()
        let (token, actions) = harness.command(.disconnect)
        XCTAssertEqual(SessionHarness.outcome(of: token, in: actions), .failure("not connected"))
    }

    func testUnexpectedDisconnectIsReportedWithItsReasonAndNotReconnectedByDefault() {
        var harness = SessionHarness()
        harness.connectReady()
        let lost = harness.feed(.deviceUpdated(SessionHarness.device(connected: false)))
        guard case .disconnected(_, let reason)? = SessionHarness.events(lost).first else { return XCTFail("\(lost)") }
        XCTAssertTrue(reason.contains("connection lost"), reason)
        XCTAssertFalse(lost.contains(.startRelayDiscovery))
        XCTAssertEqual(harness.session.link, .idle)
    }

    func testReconnectOptionFindsThePeripheralAgainAndResumes() {
        var settings = CentralSettings()
        settings.reconnect = true
        var harness = SessionHarness(settings: settings)
        harness.connectReady()
        let lost = harness.feed(.deviceRemoved(SessionHarness.peerID))
        XCTAssertEqual(SessionHarness.eventNames(lost), ["disconnected", "reconnecting"])
        XCTAssertTrue(lost.contains(.startTimer(.reconnect, after: CentralSession.relinkPause)), "a pause first")
        XCTAssertTrue(harness.feed(.timerFired(.reconnect)).contains(.startRelayDiscovery))
        let scanning = harness.feed(.discoveryStarted)
        XCTAssertFalse(
            scanning.contains { if case .program(.startTimer(.scan, _)) = $0 { true } else { false } }, "no time-out")
        let newID = DeviceID(path: "/org/bluez/hci1/dev_00_AA_01_00_00_00_new")!
        let found = harness.feed(.deviceUpdated(SessionHarness.device(id: newID)))
        XCTAssertTrue(found.contains(.connect(newID, timeout: 20)))
        // A failed attempt retries after a pause.
        let failed = harness.feed(
            .connectFinished(newID, BlueZError(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local"))
        )
        XCTAssertTrue(failed.contains(.startTimer(.reconnect, after: 1)))
        XCTAssertTrue(harness.feed(.timerFired(.reconnect)).contains(.startRelayDiscovery))
        harness.feed(.discoveryStarted)
        harness.feed(.deviceUpdated(SessionHarness.device(id: newID)))
        harness.establish(id: newID)
        guard case .ready = harness.session.link else { return XCTFail("\(harness.session.link)") }
        XCTAssertNil(harness.session.automatic.target)
    }

    func testPowerCycleReportsBothStatesAndResumesTheConnection() {
        var harness = SessionHarness()
        harness.connectReady()
        let off = harness.feed(.adapter(.poweredOff, SessionHarness.adapter))
        XCTAssertEqual(SessionHarness.eventNames(off).prefix(2), ["state", "disconnected"])
        XCTAssertFalse(off.contains(.startRelayDiscovery))
        let on = harness.feed(.adapter(.poweredOn, SessionHarness.adapter))
        XCTAssertEqual(SessionHarness.eventNames(on), ["state"])
        XCTAssertTrue(on.contains(.startRelayDiscovery))
        harness.feed(.discoveryStarted)
        XCTAssertTrue(
            harness.feed(.deviceUpdated(SessionHarness.device())).contains(.connect(SessionHarness.peerID, timeout: 20))
        )
    }

    func testAPowerOffWhileDisconnectingDoesNotReconnect() {
        var settings = CentralSettings()
        settings.reconnect = true
        var harness = SessionHarness(settings: settings)
        harness.connectReady()
        let (token, _) = harness.command(.disconnect)
        let off = harness.feed(.adapter(.poweredOff, SessionHarness.adapter))
        XCTAssertEqual(SessionHarness.outcome(of: token, in: off), .success)
        XCTAssertFalse(SessionHarness.eventNames(off).contains("reconnecting"))
        XCTAssertFalse(harness.feed(.adapter(.poweredOn, SessionHarness.adapter)).contains(.startRelayDiscovery))
    }

    func testBluetoothdRestartResumesAnInterruptedScan() {
        var harness = SessionHarness()
        harness.scanAndFind()
        let gone = harness.feed(.adapter(.unavailable(.bluetoothdNotRunning), nil))
        XCTAssertEqual(SessionHarness.eventNames(gone), ["state", "scan-stopped"])
        let back = harness.feed(.adapter(.poweredOn, SessionHarness.adapter))
        XCTAssertTrue(back.contains(.startRelayDiscovery))
        XCTAssertEqual(harness.session.scanning.state, .starting(.listing))
    }
}
