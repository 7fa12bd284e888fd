import RelayApp
import RelayProtocol
import XCTest

@testable import relay_peripheral

/// `--allow ADDRESS[,ADDRESS...]`: only the listed centrals' values reach the session.
/// An identity address from a pairing is trusted only with `--secure`, where the pairing is authenticated
/// (the characteristics need an authenticated link; the agent shows the passkey). In open mode a pairing is
/// just-works and any address can be claimed (a controller's public address can be set; a just-works bond
/// can carry any identity, and bluetoothd then names the device's later links by it), so `--allow` without
/// `--secure` keeps honest strangers' relays out, not an attacker. Before (issue 30, item 8), a change of a
/// connected device's `Address` was taken as its identity in every mode.
final class AllowListTests: XCTestCase {
    private func allowing(_ addresses: Set<BluetoothAddress>, secure: Bool = false) -> PeripheralSession {
        var settings = PeripheralSettings()
        settings.allowedCentrals = addresses
        settings.secure = secure
        return PeripheralSession.advertising(settings)
    }

    func testTheOptionTakesAddressesSeparatedByCommas() throws {
        guard case .run(let options) = try PeripheralOptions.parse(["--allow", "00:aa:01:01:00:01, 00:AA:01:02:00:02"])
        else { return XCTFail("not a run") }
        XCTAssertEqual(options.allowedCentrals, [centralA, centralB])
        XCTAssertNil(PeripheralOptions().allowedCentrals, "every central by default")
        for bad in [["--allow"], ["--allow", ""], ["--allow", "00:AA:01:01:00:01,"], ["--allow", "hci0"]] {
            XCTAssertThrowsError(try PeripheralOptions.parse(bad), "\(bad)") { error in
                XCTAssertTrue("\(error)".contains("--allow"), "\(error)")
            }
        }
    }

    func testValuesFromAnUnlistedCentralAreDroppedAndReportedAtABoundedRate() {
        var session = allowing([centralA])
        XCTAssertEqual(
            session.handle(.written(Counter(7).encoded, from: centralA, mtu: nil), at: 0).events,
            [.connected(centralA), counterEvent(from: centralA, 7)])

        // Counters, a whole message's frames, a hello and a UART line from B: none reaches anything.
        var reports: [PeripheralEvent] = []
        var time = 0.0
        var inputs: [PeripheralInput] = (0..<5).map {
            .written(Counter(UInt32($0)).encoded, from: centralB, mtu: nil)
        }
        inputs += frames(of: Message(text: "intruder"), mtu: 23).map { .written($0, from: centralB, mtu: nil) }
        inputs.append(.sessionWritten([0x01, 0x02, 0x03], from: centralB, mtu: nil))
        inputs.append(.uartWritten(Array("hello\n".utf8), from: centralB, mtu: nil))
        inputs.append(.written(Counter(9).encoded, from: nil, mtu: nil))
        for input in inputs {
            time += 0.1
            let actions = session.handle(input, at: time)
            XCTAssertTrue(
                actions.allSatisfy { if case .program(.report) = $0 { return true } else { return false } },
                "\(actions)")
            reports += actions.events
        }
        XCTAssertEqual(reports.count, 3, "at most 3 reports per 5 s: \(reports)")
        XCTAssertEqual(reports.first, .error(.notAllowed(suppressed: 0), from: centralB))
        XCTAssertEqual(session.refusals.notAllowedValues, inputs.count)
        XCTAssertNil(session.centrals[centralB], "an unlisted writer is not taken in as a central")
        XCTAssertEqual(session.messagesReceived, 0)
        XCTAssertEqual(session.uart.received, 0)

        // After a quiet spell the next report counts what was left out.
        let later = session.handle(.written(Counter(1).encoded, from: centralB, mtu: nil), at: 60).events
        XCTAssertEqual(later, [.error(.notAllowed(suppressed: inputs.count - 3), from: centralB)])
        XCTAssertTrue(later[0].humanDescription.contains("not in --allow"), later[0].humanDescription)

        // The listed central is served as before, and status says who is allowed.
        XCTAssertEqual(
            session.handle(.written(Counter(8).encoded, from: centralA, mtu: nil), at: 61).events,
            [counterEvent(from: centralA, 8)])
        let status = PeripheralStatus(session: session)
        XCTAssertEqual(status.allow, PeripheralStatus.Allow(centrals: [centralA], dropped: inputs.count + 1))
        XCTAssertTrue(status.humanDescription.contains("allowed:     \(centralA) only"), status.humanDescription)
    }

    /// With `--secure`, a central with a resolvable random address is allowed by its identity
    /// address once it has bonded (bluetoothd then gives its device object that address); it is
    /// still called by the address it connected with, and the identity is forgotten when it leaves.
    func testABondedCentralIsAllowedByItsIdentityAddress() {
        let random = BluetoothAddress("5A:11:22:33:44:55")!
        var session = allowing([centralA], secure: true)
        XCTAssertEqual(session.handle(.connected(random)).events, [.connected(random)])
        XCTAssertEqual(
            session.handle(.written(Counter(1).encoded, from: random, mtu: nil), at: 0).events,
            [.error(.notAllowed(suppressed: 0), from: random)], "not listed before it bonds")
        XCTAssertEqual(session.handle(.identityResolved(random, identity: centralA)).events, [])
        XCTAssertEqual(
            session.handle(.written(Counter(2).encoded, from: random, mtu: nil), at: 1).events,
            [counterEvent(from: random, 2)])
        _ = session.handle(.disconnected(random))
        XCTAssertEqual(
            session.handle(.written(Counter(3).encoded, from: random, mtu: nil), at: 9).events,
            [.error(.notAllowed(suppressed: 0), from: random)], "the identity went with the link")
        XCTAssertEqual(session.handle(.identityResolved(random, identity: centralB)).events, [])
        XCTAssertEqual(
            session.handle(.written(Counter(4).encoded, from: random, mtu: nil), at: 10).events,
            [.error(.notAllowed(suppressed: 0), from: random)], "an identity that is not listed does not help")
    }

    /// Without `--secure` a pairing is just-works, and the identity address it brings is whatever
    /// the central chose to send: claiming a listed central's address that way admits nothing.
    func testInOpenModeAnIdentityAddressFromAPairingAdmitsNothing() {
        let stranger = BluetoothAddress("5A:11:22:33:44:55")!
        var session = allowing([centralA])
        _ = session.handle(.connected(stranger))
        XCTAssertEqual(session.handle(.identityResolved(stranger, identity: centralA)).events, [])
        XCTAssertEqual(
            session.handle(.written(Counter(2).encoded, from: stranger, mtu: nil), at: 1).events,
            [.error(.notAllowed(suppressed: 0), from: stranger)], "a claimed identity is not a listed central")
    }

    func testWithoutTheOptionEveryCentralIsTaken() {
        var session = PeripheralSession.advertising()
        XCTAssertEqual(
            session.handle(.written(Counter(3).encoded, from: centralB, mtu: nil), at: 0).events,
            [.connected(centralB), counterEvent(from: centralB, 3)])
        XCTAssertNil(PeripheralStatus(session: session).allow)
    }
}
