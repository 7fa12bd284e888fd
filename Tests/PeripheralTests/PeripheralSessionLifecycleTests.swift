import RelayProtocol
import XCTest

@testable import relay_peripheral

final class PeripheralSessionLifecycleTests: XCTestCase {
    func testStartBeforeAdapterWaitsThenRegistersApplicationAndAdvertisementTogether() {
        var session = PeripheralSession()
        let early = session.start()
        XCTAssertNil(early.applicationTicket, "nothing is registered before the adapter is powered on")
        XCTAssertNil(early.advertisementTicket)
        XCTAssertTrue(early.contains { if case .program(.note) = $0 { return true } else { return false } })

        let powered = session.handle(.adapter(.poweredOn, hci0))
        XCTAssertEqual(powered.events.first, .state(.poweredOn, adapter: hci0))
        let app = try! XCTUnwrap(powered.applicationTicket)
        guard case .registerAdvertisement(let ad, let name, let interval)? = powered.last else {
            return XCTFail("expected the advertisement requested with the service, got \(powered)")
        }
        XCTAssertEqual(name, .default)
        XCTAssertEqual(interval.milliseconds, 100, "a short interval, so that a room of centrals finds it soon")
        XCTAssertEqual(
            powered.filter { if case .program(.report) = $0 { false } else { true } },
            [.registerApplication(app), .registerAdvertisement(ad, name: .default, interval: .relayDefault)],
            "both registrations in one go, the service first")

        XCTAssertEqual(session.handle(.applicationRegistered(app)), [.report(.registered)])
        XCTAssertEqual(session.handle(.advertisementRegistered(ad)), [.report(.advertising(name: "sample"))])
        XCTAssertEqual(session.registrations.advertisement, .active)
        XCTAssertEqual(session.registrations.application, .active)
        XCTAssertTrue(session.isAdvertising)
    }

    func testAdvertisementAnsweredFirstIsReportedOnceTheServiceIsRegistered() {
        var session = PeripheralSession()
        _ = session.handle(.adapter(.poweredOn, hci0))
        let started = session.start()
        let app = try! XCTUnwrap(started.applicationTicket)
        let ad = try! XCTUnwrap(started.advertisementTicket)
        XCTAssertEqual(
            session.handle(.advertisementRegistered(ad)), [], "not advertising the service before it is there")
        XCTAssertFalse(session.isAdvertising)
        XCTAssertEqual(session.registrations.application, .pending(app))
        XCTAssertEqual(
            session.handle(.applicationRegistered(app)),
            [.report(.registered), .report(.advertising(name: "sample"))])
        XCTAssertTrue(session.isAdvertising)
        XCTAssertEqual(session.start().events, [.advertising(name: "sample")])
    }

    func testServiceFailingAfterTheAdvertisementTakesTheAdvertisementBack() {
        var session = PeripheralSession()
        _ = session.handle(.adapter(.poweredOn, hci0))
        let started = session.start()
        _ = session.handle(.advertisementRegistered(started.advertisementTicket!))
        let failed = session.handle(
            .applicationFailed(started.applicationTicket!, applicationFailure("cannot register the GATT service")))
        XCTAssertEqual(
            failed,
            [
                .unregisterAdvertisement,
                .report(.error(.registration(applicationFailure("cannot register the GATT service")), from: nil)),
            ])
        XCTAssertEqual(session.registrations.advertisement, .absent)
        XCTAssertEqual(session.registrations.application, .absent)
        XCTAssertFalse(session.registrations.wantsAdvertising)
        let again = session.start()
        XCTAssertNotNil(again.applicationTicket, "start tries both again")
        XCTAssertNotNil(again.advertisementTicket)
    }

    func testServiceFailingBeforeTheAdvertisementTakesTheAdvertisementBackWhenItComes() {
        var session = PeripheralSession()
        _ = session.handle(.adapter(.poweredOn, hci0))
        let started = session.start()
        let failed = session.handle(
            .applicationFailed(started.applicationTicket!, applicationFailure("cannot register the GATT service")))
        XCTAssertEqual(
            failed, [.report(.error(.registration(applicationFailure("cannot register the GATT service")), from: nil))])
        XCTAssertEqual(
            session.handle(.advertisementRegistered(started.advertisementTicket!)), [.unregisterAdvertisement])
        XCTAssertEqual(session.registrations.advertisement, .absent)
        XCTAssertFalse(session.isAdvertising)
    }

    func testAdvertisementFailingWhileTheServiceIsPendingKeepsTheService() {
        var session = PeripheralSession()
        _ = session.handle(.adapter(.poweredOn, hci0))
        let started = session.start()
        let failed = session.handle(
            .advertisementFailed(started.advertisementTicket!, advertisementFailure("Maximum advertisements reached")))
        XCTAssertEqual(
            failed, [.report(.error(.registration(advertisementFailure("Maximum advertisements reached")), from: nil))])
        XCTAssertEqual(session.handle(.applicationRegistered(started.applicationTicket!)), [.report(.registered)])
        XCTAssertEqual(session.registrations.application, .active)
        XCTAssertFalse(session.isAdvertising)
        let again = session.start()
        XCTAssertNil(again.applicationTicket)
        XCTAssertNotNil(again.advertisementTicket, "start tries the advertisement again")
    }

    func testStopWhileOnlyTheAdvertisementIsRegisteredTakesItBackSilently() {
        var session = PeripheralSession()
        _ = session.handle(.adapter(.poweredOn, hci0))
        let started = session.start()
        _ = session.handle(.advertisementRegistered(started.advertisementTicket!))
        XCTAssertEqual(session.stop(), [.unregisterAdvertisement], "advertising was never reported: no stopped")
        XCTAssertEqual(session.handle(.applicationRegistered(started.applicationTicket!)), [.report(.registered)])
        XCTAssertFalse(session.isAdvertising)
    }

    func testPowerOffWhileOnlyTheAdvertisementIsRegisteredResumesAtPowerOn() {
        var session = PeripheralSession()
        _ = session.handle(.adapter(.poweredOn, hci0))
        let started = session.start()
        _ = session.handle(.advertisementRegistered(started.advertisementTicket!))
        let off = session.handle(.adapter(.poweredOff, hci0))
        XCTAssertEqual(off, [.report(.state(.poweredOff, adapter: hci0)), .unregisterAdvertisement])
        XCTAssertEqual(session.handle(.applicationRegistered(started.applicationTicket!)), [.report(.registered)])
        let on = session.handle(.adapter(.poweredOn, hci0))
        XCTAssertNil(on.applicationTicket)
        let ad = try! XCTUnwrap(on.advertisementTicket)
        XCTAssertEqual(session.handle(.advertisementRegistered(ad)).events, [.advertising(name: "sample")])
    }

    func testStartIsIdempotent() {
        var session = PeripheralSession.advertising()
        let again = session.start()
        XCTAssertNil(again.applicationTicket)
        XCTAssertNil(again.advertisementTicket)
        XCTAssertEqual(again.events, [.advertising(name: "sample")], "a repeated start re-reports the state for wait")
        var pending = PeripheralSession()
        _ = pending.handle(.adapter(.poweredOn, hci0))
        XCTAssertNotNil(pending.start().applicationTicket)
        XCTAssertTrue(pending.start().filter { if case .registerApplication = $0 { true } else { false } }.isEmpty)
    }

    func testStopUnregistersOnlyTheAdvertisementAndKeepsCentrals() {
        var session = PeripheralSession.advertising()
        _ = session.handle(.connected(centralA))
        let stopped = session.stop()
        XCTAssertEqual(stopped.first, .unregisterAdvertisement)
        XCTAssertEqual(stopped.events, [.stopped(.command)])
        XCTAssertFalse(stopped.contains(.unregisterApplication))
        XCTAssertEqual(session.registrations.application, .active)
        XCTAssertNotNil(session.centrals[centralA])
        XCTAssertEqual(session.stop(), [.note("not advertising")], "stop twice is harmless")
        let restarted = session.start()
        XCTAssertNotNil(restarted.advertisementTicket)
        XCTAssertNil(restarted.applicationTicket)
    }

    func testStopWhileRegistrationPendingUnregistersWhenTheReplyComes() {
        var session = PeripheralSession()
        _ = session.handle(.adapter(.poweredOn, hci0))
        let started = session.start()
        let ad = started.advertisementTicket!
        _ = session.handle(.applicationRegistered(started.applicationTicket!))
        _ = session.stop()
        let late = session.handle(.advertisementRegistered(ad))
        XCTAssertEqual(late.first, .unregisterAdvertisement)
        XCTAssertEqual(session.registrations.advertisement, .absent)
    }

    func testPowerOffPausesAndPowerOnResumes() {
        var session = PeripheralSession.advertising()
        _ = session.handle(.connected(centralA))
        _ = session.handle(.notifyStarted(from: centralA, mtu: MTU(247)))
        XCTAssertNoThrow(try session.send(Message(text: "queued"), at: 0))

        let off = session.handle(.adapter(.poweredOff, hci0))
        XCTAssertEqual(off.first, .report(.state(.poweredOff, adapter: hci0)))
        XCTAssertTrue(off.contains(.unregisterAdvertisement))
        XCTAssertEqual(
            off.eventNames, ["state", "stopped", "disconnected", "error"],
            "paused advertising, the link is gone, the queued message is reported lost")
        XCTAssertEqual(session.registrations.advertisement, .absent)
        XCTAssertEqual(
            session.registrations.application, .active, "bluetoothd keeps the GATT application across a power cycle")
        XCTAssertTrue(session.centrals.isEmpty)
        XCTAssertFalse(session.hasPendingValues)
        XCTAssertThrowsError(try session.notify(value: nil, at: 0))

        let on = session.handle(.adapter(.poweredOn, hci0))
        XCTAssertEqual(on.events, [.state(.poweredOn, adapter: hci0)])
        let ad = try! XCTUnwrap(on.advertisementTicket, "power-on re-advertises without a command")
        XCTAssertEqual(session.handle(.advertisementRegistered(ad)).events, [.advertising(name: "sample")])
    }

    func testPowerOffWhileAdvertisementPendingTakesItBackAndResumesAtPowerOn() {
        var session = PeripheralSession()
        _ = session.handle(.adapter(.poweredOn, hci0))
        let started = session.start()
        let ad = started.advertisementTicket!
        _ = session.handle(.applicationRegistered(started.applicationTicket!))
        _ = session.handle(.adapter(.poweredOff, hci0))
        XCTAssertEqual(session.handle(.advertisementRegistered(ad)), [.unregisterAdvertisement])
        XCTAssertEqual(session.registrations.advertisement, .absent)
        let on = session.handle(.adapter(.poweredOn, hci0))
        XCTAssertNotNil(on.advertisementTicket)
    }

    func testPowerOffAfterStopDoesNotResumeAdvertising() {
        var session = PeripheralSession.advertising()
        _ = session.stop()
        _ = session.handle(.adapter(.poweredOff, hci0))
        XCTAssertNil(session.handle(.adapter(.poweredOn, hci0)).advertisementTicket)
    }

    func testBluetoothdRestartReRegistersEverything() {
        var session = PeripheralSession.advertising()
        _ = session.handle(.connected(centralA))
        let gone = session.handle(.adapter(.unavailable(.bluetoothdNotRunning), nil))
        XCTAssertFalse(gone.contains(.unregisterAdvertisement), "nothing to unregister with bluetoothd gone")
        XCTAssertEqual(gone.eventNames, ["state", "stopped", "disconnected"])
        XCTAssertEqual(session.registrations.application, .absent)
        XCTAssertEqual(session.registrations.advertisement, .absent)

        let back = session.handle(.adapter(.poweredOn, hci0))
        let app = try! XCTUnwrap(back.applicationTicket)
        let ad = try! XCTUnwrap(back.advertisementTicket)
        XCTAssertEqual(session.handle(.applicationRegistered(app)).events, [.registered])
        XCTAssertEqual(session.handle(.advertisementRegistered(ad)).events, [.advertising(name: "sample")])
    }

    func testLateReplyFromBeforeARestartIsIgnored() {
        var session = PeripheralSession()
        _ = session.handle(.adapter(.poweredOn, hci0))
        let old = session.start().applicationTicket!
        _ = session.handle(.adapter(.unavailable(.bluetoothdNotRunning), nil))
        let fresh = session.handle(.adapter(.poweredOn, hci0)).applicationTicket!
        XCTAssertNotEqual(old, fresh)
        XCTAssertEqual(
            session.handle(.applicationFailed(old, applicationFailure("org.freedesktop.DBus.Error.NoReply"))), [])
        XCTAssertEqual(session.registrations.application, .pending(fresh))
        XCTAssertEqual(session.handle(.applicationRegistered(fresh)).events, [.registered])
    }

    func testRegistrationFailuresAreReportedAndNotRetriedInALoop() {
        var session = PeripheralSession()
        _ = session.handle(.adapter(.poweredOn, hci0))
        let started = session.start()
        let ad = started.advertisementTicket!
        _ = session.handle(.applicationRegistered(started.applicationTicket!))
        let failed = session.handle(.advertisementFailed(ad, advertisementFailure("Maximum advertisements reached")))
        XCTAssertEqual(
            failed, [.report(.error(.registration(advertisementFailure("Maximum advertisements reached")), from: nil))])
        XCTAssertFalse(session.registrations.wantsAdvertising)
        XCTAssertNil(session.handle(.adapter(.poweredOff, hci0)).advertisementTicket)
        XCTAssertNil(session.handle(.adapter(.poweredOn, hci0)).advertisementTicket)
        XCTAssertNotNil(session.start().advertisementTicket, "start tries again")
    }

    func testReleasedAdvertisementIsReportedAndNotReRegisteredUntilStart() {
        var session = PeripheralSession.advertising()
        XCTAssertEqual(session.handle(.advertisementReleased).events, [.stopped(.released)])
        XCTAssertEqual(session.registrations.advertisement, .absent)
        XCTAssertNil(session.handle(.connected(centralA)).advertisementTicket)
        XCTAssertNotNil(session.start().advertisementTicket)
    }

    func testReleaseBeforeThePowerOffSignalStillResumesOnPowerOn() {
        var session = PeripheralSession.advertising()
        _ = session.handle(.advertisementReleased)
        _ = session.handle(.adapter(.poweredOff, hci0))
        XCTAssertNotNil(session.handle(.adapter(.poweredOn, hci0)).advertisementTicket)
    }

    func testAdapterStatesAreReportedOnceEach() {
        var session = PeripheralSession()
        XCTAssertEqual(session.handle(.adapter(.poweredOff, hci0)).eventNames, ["state"])
        XCTAssertEqual(session.handle(.adapter(.poweredOff, hci0)), [])
        let denied = session.handle(.adapter(.unavailable(.accessDenied), nil))
        XCTAssertEqual(denied.events, [.state(.unavailable(.accessDenied), adapter: nil)])
    }

    func testQuitUnregistersWhatIsRegistered() {
        var session = PeripheralSession.advertising()
        let actions = session.quit()
        XCTAssertEqual(actions, [.unregisterAdvertisement, .report(.stopped(.quit)), .unregisterApplication])
        XCTAssertEqual(session.quit(), [])
    }
}

/// Advertising after a central connected (issue 47): on an adapter that advertises extended
/// (Linux does not restart it), renewed at once, and held (said once) when the adapter cannot
/// advertise while connected; on a legacy one left to Linux.
final class PeripheralAdvertisingHeldTests: XCTestCase {
    private let centralA = BluetoothAddress("00:AA:01:01:00:01")!
    private let centralB = BluetoothAddress("00:AA:01:02:00:02")!

    /// Advertising on an adapter that advertises extended.
    private func advertisingExtended() -> PeripheralSession {
        var session = PeripheralSession.advertising()
        var extended = hci0
        extended.extendedAdvertising = true
        _ = session.handle(.adapter(.poweredOn, extended))
        return session
    }

    func testOnALegacyAdapterAConnectionLeavesAdvertisingToLinux() {
        var session = PeripheralSession.advertising()
        XCTAssertEqual(session.handle(.connected(centralA)), [.report(.connected(centralA))])
        XCTAssertTrue(session.isAdvertising)
    }

    private func renewal(_ actions: [PeripheralAction]) -> RegistrationTicket? {
        for case .renewAdvertisement(let ticket, _, _) in actions { return ticket }
        return nil
    }

    func testAConnectionRenewsTheAdvertisementQuietly() throws {
        var session = advertisingExtended()
        let joined = session.handle(.connected(centralA))
        XCTAssertEqual(joined.events, [.connected(centralA)])
        let ticket = try XCTUnwrap(renewal(joined), "a controller stops advertising at a connection: ask again")
        XCTAssertEqual(session.handle(.advertisementRegistered(ticket)), [], "still advertising: nothing to say")
        XCTAssertTrue(session.isAdvertising)
        XCTAssertNil(session.registrations.heldByCentrals)
    }

    func testAnAdapterThatCannotAdvertiseWhileConnectedIsSaidOnceAndAdvertisesAgainWhenACentralLeaves() throws {
        var session = advertisingExtended()
        let first = try XCTUnwrap(renewal(session.handle(.connected(centralA))))
        let refused = advertisementFailure("Failed to register advertisement")
        XCTAssertEqual(session.handle(.advertisementFailed(first, refused)).events, [.advertisingHeld(centrals: 1)])
        XCTAssertFalse(session.isAdvertising)
        XCTAssertTrue(session.registrations.wantsAdvertising, "not an error: it waits for a central to leave")
        XCTAssertEqual(PeripheralStatus(session: session).advertisingHeld, 1)
        XCTAssertEqual(session.handle(.connected(centralB)).events, [.connected(centralB)], "nothing to renew")
        // B leaves: asked again; refused again (A is still there): not said twice.
        let left = session.handle(.disconnected(centralB))
        let again = try XCTUnwrap(left.advertisementTicket)
        XCTAssertEqual(session.handle(.advertisementFailed(again, refused)).events, [])
        XCTAssertEqual(session.registrations.heldByCentrals, 1)
        // A leaves: advertising again, said.
        let last = try XCTUnwrap(session.handle(.disconnected(centralA)).advertisementTicket)
        XCTAssertEqual(session.handle(.advertisementRegistered(last)), [.report(.advertising(name: "sample"))])
        XCTAssertNil(session.registrations.heldByCentrals)
        XCTAssertTrue(session.isAdvertising)
    }

    func testARenewalOnItsWayWhenStopAndStartComeIsTheAdvertisementAskedFor() throws {
        var session = advertisingExtended()
        let renewing = try XCTUnwrap(renewal(session.handle(.connected(centralA))))
        XCTAssertEqual(session.stop().events, [.stopped(.command)])
        XCTAssertNil(session.start().advertisementTicket, "the renewal's answer decides: no second registration")
        XCTAssertEqual(session.handle(.advertisementRegistered(renewing)), [.report(.advertising(name: "sample"))])
        XCTAssertTrue(session.isAdvertising)
    }

    func testARetryRefusedAfterTheLastCentralLeftIsAskedAgainNotAnError() throws {
        var session = advertisingExtended()
        let refused = advertisementFailure("Failed to register advertisement")
        let first = try XCTUnwrap(renewal(session.handle(.connected(centralA))))
        _ = session.handle(.connected(centralB))
        _ = session.handle(.advertisementFailed(first, refused))
        let retry = try XCTUnwrap(session.handle(.disconnected(centralA)).advertisementTicket)
        _ = session.handle(.disconnected(centralB))
        let again = session.handle(.advertisementFailed(retry, refused))
        XCTAssertEqual(again.events, [], "no error: nobody is connected now, so it is asked once more")
        let last = try XCTUnwrap(again.advertisementTicket)
        XCTAssertEqual(session.handle(.advertisementRegistered(last)), [.report(.advertising(name: "sample"))])
        XCTAssertNil(session.registrations.heldByCentrals)
    }

    func testStopWhileHeldForgetsIt() throws {
        var session = advertisingExtended()
        let first = try XCTUnwrap(renewal(session.handle(.connected(centralA))))
        _ = session.handle(.advertisementFailed(first, advertisementFailure("no")))
        XCTAssertEqual(session.registrations.heldByCentrals, 1)
        _ = session.stop()
        XCTAssertNil(session.registrations.heldByCentrals)
        XCTAssertNil(PeripheralStatus(session: session).advertisingHeld)
    }

    func testARegistrationFailingWithNoCentralConnectedIsStillAnError() throws {
        var session = advertisingExtended()
        let ticket = try XCTUnwrap(renewal(session.handle(.connected(centralA))))
        _ = session.handle(.disconnected(centralA))
        // The renewal refused after A left: asked once more, as if new; that one refused is an error.
        let again = try XCTUnwrap(
            session.handle(.advertisementFailed(ticket, advertisementFailure("no"))).advertisementTicket)
        let failed = session.handle(.advertisementFailed(again, advertisementFailure("no")))
        XCTAssertEqual(failed.events.map(\.name), ["error"])
        XCTAssertFalse(session.registrations.wantsAdvertising)
    }

    func testAfterStopAConnectionRenewsNothing() {
        var session = advertisingExtended()
        _ = session.stop()
        XCTAssertNil(renewal(session.handle(.connected(centralA))))
    }
}
