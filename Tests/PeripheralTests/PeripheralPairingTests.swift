import RelayApp
import RelayBlueZ
import RelayProtocol
import XCTest

@testable import relay_peripheral

/// `--secure`: the values' flags, and what the session reports of each pairing.
final class PeripheralPairingTests: XCTestCase {
    private func secureSession() -> PeripheralSession {
        var settings = PeripheralSettings()
        settings.secure = true
        return PeripheralSession.advertising(settings)
    }

    func testSecureModeLocksEveryValueAndAddsThePairingCharacteristic() throws {
        guard case .run(let options) = try PeripheralOptions.parse(["--secure"]) else { return XCTFail("not a run") }
        XCTAssertTrue(options.secure)
        XCTAssertFalse(PeripheralOptions().secure, "open by default")

        let open = PeripheralGattProfile.localService()
        XCTAssertFalse(open.characteristics.contains { $0.uuid == RelayProfile.pairingCharacteristic })
        for characteristic in open.characteristics + PeripheralGattProfile.uartService().characteristics {
            XCTAssertTrue(
                characteristic.flags.isDisjoint(with: [.secureRead, .secureWrite, .secureNotify]), "\(characteristic)")
        }

        let secure = PeripheralGattProfile.localService(secure: true).characteristics
        func flags(_ uuid: BluetoothUUID, in list: [LocalCharacteristic] = secure) -> CharacteristicFlags? {
            list.first { $0.uuid == uuid }?.flags
        }
        XCTAssertEqual(
            flags(RelayProfile.writeCharacteristic), [.read, .writeWithoutResponse, .secureRead, .secureWrite])
        XCTAssertEqual(flags(RelayProfile.notifyCharacteristic), [.read, .notify, .secureRead, .secureNotify])
        XCTAssertEqual(
            flags(RelayProfile.sessionCharacteristic), [.writeWithoutResponse, .notify, .secureWrite, .secureNotify])
        XCTAssertEqual(flags(RelayProfile.pairingCharacteristic), [.secureRead])
        let uart = PeripheralGattProfile.uartService(secure: true).characteristics
        XCTAssertEqual(flags(UARTProfile.rxCharacteristic, in: uart), [.write, .writeWithoutResponse, .secureWrite])
        XCTAssertEqual(flags(UARTProfile.txCharacteristic, in: uart), [.notify, .secureNotify])
        XCTAssertEqual(
            CharacteristicFlags.parse(["secure-read", "secure-write", "secure-notify"]).flags,
            [.secureRead, .secureWrite, .secureNotify], "the BlueZ spellings")
    }

    func testThePasskeyIsShownOnceAndTheBondReported() {
        var session = secureSession()
        let passkey = Passkey(4_321)!
        let shown = session.handle(.pairing(.passkeyShown(centralA, passkey, entered: 0))).events
        XCTAssertEqual(shown, [.pairing(.passkey(PeerName(.central, centralA), passkey))])
        XCTAssertTrue(shown[0].humanDescription.contains("passkey 004321"), shown[0].humanDescription)
        XCTAssertEqual(shown[0].fields.map(\.0), ["address", "passkey"])
        XCTAssertEqual(shown[0].fields[1].1, .string("004321"))
        // bluetoothd calls again as digits are typed on the other side: not shown again.
        XCTAssertEqual(session.handle(.pairing(.passkeyShown(centralA, passkey, entered: 3))).events, [])
        XCTAssertEqual(
            session.handle(.pairing(.paired(centralA))).events, [.pairing(.paired(PeerName(.central, centralA)))])
        // It stays connected: no failure when it leaves later.
        XCTAssertEqual(session.handle(.disconnected(centralA)).events.filter { $0.name.hasPrefix("pairing") }, [])
        let status = PeripheralStatus(session: session)
        XCTAssertEqual(status.secure, PeripheralStatus.Secure(paired: 1, failed: 0, pairing: []))
        XCTAssertTrue(status.humanDescription.contains("1 paired, 0 failed"), status.humanDescription)
    }

    func testAFailedAttemptIsReportedAtABoundedRate() {
        var session = secureSession()
        // A central that saw a passkey and left without bonding (a wrong passkey, as a
        // peripheral learns of it), one that asked to pair without a passkey, and a cancel.
        _ = session.handle(.pairing(.passkeyShown(centralA, Passkey(1)!, entered: 0)))
        XCTAssertEqual(
            session.handle(.disconnected(centralA)).events.last,
            .pairing(.failed(PeerName(.central, centralA), .notCompleted)))
        XCTAssertEqual(
            session.handle(.pairing(.refusedWithoutPasskey(centralB))).events,
            [.pairing(.failed(PeerName(.central, centralB), .withoutPasskey))])
        _ = session.handle(.pairing(.passkeyShown(centralB, Passkey(2)!, entered: 0)))
        XCTAssertEqual(
            session.handle(.pairing(.cancelled)).events, [.pairing(.failed(PeerName(.central, centralB), .cancelled))])
        // The fourth within 5 s is counted, not shown.
        XCTAssertEqual(session.handle(.pairing(.refusedWithoutPasskey(centralB))).events, [])
        XCTAssertEqual(session.pairing.failed, 4)
        let later = session.handle(.pairing(.refusedWithoutPasskey(centralB)), at: 60).events
        XCTAssertEqual(later.count, 1)
        let failure = later[0]
        XCTAssertEqual(failure.name, "pairing-failed")
        XCTAssertEqual(failure.fields.map(\.0), ["address", "reason", "message"])
        XCTAssertEqual(failure.fields[1].1, .string("without-passkey"))
    }

    /// A central that connects and leaves without a bond (an intruder that writes without
    /// pairing: bluetoothd refuses its values unseen) is a failed attempt; one shown a passkey is
    /// reported once, as not completed.
    func testACentralLeavingWithoutPairingIsAFailedAttempt() {
        var session = secureSession()
        _ = session.handle(.connected(centralB))
        let failure = session.handle(.pairing(.leftUnpaired(centralB))).events
        XCTAssertEqual(failure, [.pairing(.failed(PeerName(.central, centralB), .notPaired))])
        XCTAssertEqual(failure[0].fields[1].1, .string("not-paired"))
        XCTAssertTrue(failure[0].humanDescription.contains("without pairing"), failure[0].humanDescription)
        _ = session.handle(.disconnected(centralB))

        _ = session.handle(.pairing(.passkeyShown(centralA, Passkey(1)!, entered: 0)))
        XCTAssertEqual(session.handle(.pairing(.leftUnpaired(centralA))).events, [])
        XCTAssertEqual(
            session.handle(.disconnected(centralA)).events.filter { $0.name == "pairing-failed" },
            [.pairing(.failed(PeerName(.central, centralA), .notCompleted))])
        XCTAssertEqual(session.pairing.failed, 2)

        // Refused (or cancelled) and then gone: reported once, when it was refused.
        _ = session.handle(.connected(centralB))
        XCTAssertEqual(
            session.handle(.pairing(.refusedWithoutPasskey(centralB))).events,
            [.pairing(.failed(PeerName(.central, centralB), .withoutPasskey))])
        XCTAssertEqual(session.handle(.pairing(.leftUnpaired(centralB))).events, [])
        _ = session.handle(.disconnected(centralB))
        XCTAssertEqual(session.pairing.failed, 3)
        // Its next connection is a new attempt (after the 5 s the reports are paced over).
        _ = session.handle(.connected(centralB), at: 60)
        XCTAssertEqual(
            session.handle(.pairing(.leftUnpaired(centralB)), at: 60).events,
            [.pairing(.failed(PeerName(.central, centralB), .notPaired))])
    }

    func testAnAgentRefusedByBluetoothdIsAnError() {
        var session = secureSession()
        let events = session.handle(.pairing(.agentFailed(BlueZError(.alreadyExists, "taken")))).events
        guard case .error(.agent, nil)? = events.first else { return XCTFail("\(events)") }
        XCTAssertTrue(events[0].humanDescription.contains("pairing agent"), events[0].humanDescription)
    }
}
