import RelayApp
import RelayBlueZ
import RelayProtocol
import XCTest

@testable import relay_central

/// Secure mode on the central: pairing before subscribing, the passkey, `pair`, `unpair`.
final class PairingTests: XCTestCase {
    static let pairingID = CharacteristicID(path: "/org/bluez/hci1/dev_00_AA_01_00_00_00/service0001/char0008")!
    static let secureCharacteristics =
        SessionHarness.relayCharacteristics + [
            RemoteCharacteristic(
                id: pairingID, uuid: RelayProfile.pairingCharacteristic, serviceUUID: RelayProfile.service,
                flags: [.read])
        ]

    /// Connects (by command) to a peripheral serving the pairing characteristic, up to the agent's request.
    private func connectToSecurePeripheral(_ harness: inout SessionHarness) -> CommandToken {
        harness.scanAndFind()
        let (token, _) = harness.command(.connect(.index(0)))
        harness.feed(.connectFinished(SessionHarness.peerID, nil))
        harness.feed(.deviceUpdated(SessionHarness.device(connected: true, resolved: true)))
        let found = harness.feed(.characteristicsFound(SessionHarness.peerID, Self.secureCharacteristics))
        XCTAssertEqual(found, [.pair(SessionHarness.peerID)], "pairs before anything is subscribed")
        return token
    }

    func testAPeripheralAskingForABondIsPairedWithThePasskeyTypedThenSubscribed() {
        var harness = SessionHarness()
        let connect = connectToSecurePeripheral(&harness)
        let asked = harness.feed(.passkeyRequested(SessionHarness.peerID))
        XCTAssertEqual(SessionHarness.events(asked), [.pairing(.request(SessionHarness.peerName))])
        XCTAssertTrue(
            SessionHarness.events(asked)[0].humanDescription.contains("this peripheral requires pairing"),
            SessionHarness.events(asked)[0].humanDescription)
        XCTAssertEqual(
            SessionHarness.outcome(of: connect, in: asked), .success,
            "connect gives the prompt back so that passkey can be typed")

        let typed = harness.command(.passkey(Passkey(parsing: "012345")!))
        XCTAssertEqual(typed.actions, [.answerPasskey(Passkey(12_345)!), .finish(typed.token, nil)])
        let again = harness.command(.passkey(Passkey(1)!))
        guard case .failure(let why)? = SessionHarness.outcome(of: again.token, in: again.actions) else {
            return XCTFail("\(again.actions)")
        }
        XCTAssertTrue(why.contains("no pairing is waiting"), why)

        let paired = harness.feed(.pairFinished(SessionHarness.peerID, nil))
        XCTAssertEqual(SessionHarness.events(paired), [.pairing(.paired(SessionHarness.peerName))])
        XCTAssertEqual(
            Array(paired.dropFirst()), [.startNotify(SessionHarness.notifyID), .acquireWrite(SessionHarness.writeID)],
            "then the link is set up as usual")
        harness.feed(.notifyStarted(nil))
        let ready = harness.feed(.writeAcquired(MTU(517)!))
        XCTAssertEqual(SessionHarness.eventNames(ready), ["ready"])
    }

    func testABondedPeripheralIsNotPairedAgain() {
        var harness = SessionHarness()
        harness.scanAndFind()
        harness.command(.connect(.index(0)))
        harness.feed(.connectFinished(SessionHarness.peerID, nil))
        var device = SessionHarness.device(connected: true, resolved: true)
        device.paired = true
        harness.feed(.deviceUpdated(device))
        let found = harness.feed(.characteristicsFound(SessionHarness.peerID, Self.secureCharacteristics))
        XCTAssertEqual(found, [.startNotify(SessionHarness.notifyID), .acquireWrite(SessionHarness.writeID)])
    }

    func testAWrongPasskeyFailsTheLinkInOneLine() {
        var harness = SessionHarness()
        _ = connectToSecurePeripheral(&harness)
        harness.feed(.passkeyRequested(SessionHarness.peerID))
        harness.command(.passkey(Passkey(999_999)!))
        let failed = harness.feed(
            .pairFinished(SessionHarness.peerID, BlueZError(name: "org.bluez.Error.AuthenticationFailed", message: "")))
        let events = SessionHarness.events(failed)
        XCTAssertEqual(events.first, .pairing(.failed(SessionHarness.peerName, .wrongPasskey)))
        XCTAssertEqual(events.first?.fields[1].1, .string("wrong-passkey"))
        XCTAssertTrue(failed.contains(.disconnect(SessionHarness.peerID)), "\(failed)")
        XCTAssertFalse(failed.contains(.startNotify(SessionHarness.notifyID)), "nothing is subscribed")
        XCTAssertEqual(
            events.filter { if case .error = $0 { return true } else { return false } }, [],
            "the pairing-failed line says it all")
        XCTAssertEqual(events.first?.humanDescription, "pairing with \(SessionHarness.peerName) failed: wrong passkey")
    }

    func testARefusedSubscriptionPairsOnceThenSubscribesAgain() {
        var harness = SessionHarness()
        harness.scanAndFind()
        harness.command(.connect(.index(0)))
        harness.feed(.connectFinished(SessionHarness.peerID, nil))
        harness.feed(.deviceUpdated(SessionHarness.device(connected: true, resolved: true)))
        harness.feed(.characteristicsFound(SessionHarness.peerID, SessionHarness.relayCharacteristics))
        let notPaired = BlueZError(name: "org.bluez.Error.NotPermitted", message: "Not paired")
        XCTAssertEqual(harness.feed(.notifyStarted(notPaired)), [.pair(SessionHarness.peerID)])
        harness.feed(.passkeyRequested(SessionHarness.peerID))
        harness.command(.passkey(Passkey(7)!))
        let paired = harness.feed(.pairFinished(SessionHarness.peerID, nil))
        XCTAssertEqual(paired.last, .startNotify(SessionHarness.notifyID))
        // Refused again on the same link: no second pairing, the link is given up.
        let refused = harness.feed(.notifyStarted(notPaired))
        XCTAssertFalse(refused.contains(.pair(SessionHarness.peerID)))
        XCTAssertTrue(refused.contains(.disconnect(SessionHarness.peerID)), "\(refused)")
    }

    func testPairAndUnpairByHand() {
        var harness = SessionHarness()
        let idle = harness.command(.pair)
        guard case .failure(let why)? = SessionHarness.outcome(of: idle.token, in: idle.actions) else {
            return XCTFail("\(idle.actions)")
        }
        XCTAssertTrue(why.contains("not connected"), why)

        harness.connectReady()
        let pair = harness.command(.pair)
        XCTAssertEqual(pair.actions, [.pair(SessionHarness.peerID)])
        let asked = harness.feed(.passkeyRequested(SessionHarness.peerID))
        XCTAssertEqual(SessionHarness.outcome(of: pair.token, in: asked), .success)
        harness.command(.passkey(Passkey(42)!))
        let paired = harness.feed(.pairFinished(SessionHarness.peerID, nil))
        XCTAssertEqual(SessionHarness.eventNames(paired), ["paired"])
        XCTAssertTrue(harness.session.isPaired(SessionHarness.peerID))
        let twice = harness.command(.pair)
        guard case .failure(let already)? = SessionHarness.outcome(of: twice.token, in: twice.actions) else {
            return XCTFail("\(twice.actions)")
        }
        XCTAssertTrue(already.contains("already paired"), already)

        let unpair = harness.command(.unpair)
        XCTAssertEqual(unpair.actions, [.cancelTimer(.reconnect), .unpair(SessionHarness.peerID)])
        let forgotten = harness.feed(.unpairFinished(SessionHarness.peerID, nil))
        XCTAssertEqual(SessionHarness.eventNames(forgotten), ["unpaired"])
        XCTAssertEqual(SessionHarness.outcome(of: unpair.token, in: forgotten), .success)
        XCTAssertFalse(harness.session.isPaired(SessionHarness.peerID))
    }

    func testThePasskeyCommandTakesSixDigitsOnly() throws {
        XCTAssertEqual(try CentralCommands.command("passkey", ["000042"]), .passkey(Passkey(42)!))
        for bad in [[], ["42"], ["1234567"], ["12345a"], ["-12345"], ["123456", "1"]] {
            XCTAssertThrowsError(try CentralCommands.command("passkey", bad), "\(bad)") { error in
                XCTAssertTrue("\(error)".contains("passkey"), "\(error)")
            }
        }
        XCTAssertEqual(Passkey(999_999)?.description, "999999")
        XCTAssertNil(Passkey(1_000_000))
        XCTAssertNil(Passkey(parsing: "１２３４５６"), "ASCII digits only")
    }
}
