import RelayProtocol
import Shared
import XCTest

@testable import relay_peripheral

final class PeripheralSessionLifecycleTests: XCTestCase {
    func testStartBeforeAdapterWaitsThenRegistersApplicationThenAdvertisement() {
        var session = PeripheralSession()
        let early = session.start()
        XCTAssertNil(early.applicationTicket, "nothing is registered before the adapter is powered on")
        XCTAssertTrue(early.contains { if case .note = $0 { return true } else { return false } })

        let powered = session.handle(.adapter(.poweredOn, name: "hci0"))
        XCTAssertEqual(powered.events.first, .state(.poweredOn, adapter: "hci0"))
        let app = try! XCTUnwrap(powered.applicationTicket)
        XCTAssertNil(powered.advertisementTicket, "the advertisement waits for the service")

        let registered = session.handle(.applicationRegistered(app))
        XCTAssertEqual(registered.events, [.registered])
        guard case .registerAdvertisement(let ad, let name)? = registered.last else {
            return XCTFail("expected an advertisement registration, got \(registered)")
        }
        XCTAssertEqual(name, .default)
        XCTAssertEqual(session.handle(.advertisementRegistered(ad)).events, [.advertising(name: "sample")])
        XCTAssertEqual(session.advertisement, .active)
        XCTAssertEqual(session.application, .active)
    }

    func testStartIsIdempotent() {
        var session = PeripheralSession.advertising()
        let again = session.start()
        XCTAssertNil(again.applicationTicket)
        XCTAssertNil(again.advertisementTicket)
        XCTAssertEqual(again.events, [.advertising(name: "sample")], "a repeated start re-reports the state for wait")
        var pending = PeripheralSession()
        _ = pending.handle(.adapter(.poweredOn, name: "hci0"))
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
        XCTAssertEqual(session.application, .active)
        XCTAssertNotNil(session.centrals[centralA])
        XCTAssertEqual(session.stop(), [.note("not advertising")], "stop twice is harmless")
        let restarted = session.start()
        XCTAssertNotNil(restarted.advertisementTicket)
        XCTAssertNil(restarted.applicationTicket)
    }

    func testStopWhileRegistrationPendingUnregistersWhenTheReplyComes() {
        var session = PeripheralSession()
        _ = session.handle(.adapter(.poweredOn, name: "hci0"))
        let app = session.start().applicationTicket!
        let ad = session.handle(.applicationRegistered(app)).advertisementTicket!
        _ = session.stop()
        let late = session.handle(.advertisementRegistered(ad))
        XCTAssertEqual(late.first, .unregisterAdvertisement)
        XCTAssertEqual(session.advertisement, .absent)
    }

    func testPowerOffPausesAndPowerOnResumes() {
        var session = PeripheralSession.advertising()
        _ = session.handle(.connected(centralA))
        _ = session.handle(.notifyStarted(from: centralA, mtu: MTU(247)))
        XCTAssertNoThrow(try session.send(Message(text: "queued")))

        let off = session.handle(.adapter(.poweredOff, name: "hci0"))
        XCTAssertEqual(off.first, .report(.state(.poweredOff, adapter: "hci0")))
        XCTAssertTrue(off.contains(.unregisterAdvertisement))
        XCTAssertEqual(
            off.eventNames, ["state", "stopped", "disconnected", "error"],
            "paused advertising, the link is gone, the queued message is reported lost")
        XCTAssertEqual(session.advertisement, .absent)
        XCTAssertEqual(session.application, .active, "bluetoothd keeps the GATT application across a power cycle")
        XCTAssertTrue(session.centrals.isEmpty)
        XCTAssertFalse(session.hasPendingValues)
        XCTAssertThrowsError(try session.notify(value: nil))

        let on = session.handle(.adapter(.poweredOn, name: "hci0"))
        XCTAssertEqual(on.events, [.state(.poweredOn, adapter: "hci0")])
        let ad = try! XCTUnwrap(on.advertisementTicket, "power-on re-advertises without a command")
        XCTAssertEqual(session.handle(.advertisementRegistered(ad)).events, [.advertising(name: "sample")])
    }

    func testPowerOffWhileAdvertisementPendingTakesItBackAndResumesAtPowerOn() {
        var session = PeripheralSession()
        _ = session.handle(.adapter(.poweredOn, name: "hci0"))
        let app = session.start().applicationTicket!
        let ad = session.handle(.applicationRegistered(app)).advertisementTicket!
        _ = session.handle(.adapter(.poweredOff, name: "hci0"))
        XCTAssertEqual(session.handle(.advertisementRegistered(ad)), [.unregisterAdvertisement])
        XCTAssertEqual(session.advertisement, .absent)
        let on = session.handle(.adapter(.poweredOn, name: "hci0"))
        XCTAssertNotNil(on.advertisementTicket)
    }

    func testPowerOffAfterStopDoesNotResumeAdvertising() {
        var session = PeripheralSession.advertising()
        _ = session.stop()
        _ = session.handle(.adapter(.poweredOff, name: "hci0"))
        XCTAssertNil(session.handle(.adapter(.poweredOn, name: "hci0")).advertisementTicket)
    }

    func testBluetoothdRestartReRegistersEverything() {
        var session = PeripheralSession.advertising()
        _ = session.handle(.connected(centralA))
        let gone = session.handle(.adapter(.notAvailable("bluetoothd is not running"), name: nil))
        XCTAssertFalse(gone.contains(.unregisterAdvertisement), "nothing to unregister with bluetoothd gone")
        XCTAssertEqual(gone.eventNames, ["state", "stopped", "disconnected"])
        XCTAssertEqual(session.application, .absent)
        XCTAssertEqual(session.advertisement, .absent)

        let back = session.handle(.adapter(.poweredOn, name: "hci0"))
        let app = try! XCTUnwrap(back.applicationTicket)
        let ad = try! XCTUnwrap(session.handle(.applicationRegistered(app)).advertisementTicket)
        XCTAssertEqual(session.handle(.advertisementRegistered(ad)).events, [.advertising(name: "sample")])
    }

    func testLateReplyFromBeforeARestartIsIgnored() {
        var session = PeripheralSession()
        _ = session.handle(.adapter(.poweredOn, name: "hci0"))
        let old = session.start().applicationTicket!
        _ = session.handle(.adapter(.notAvailable("bluetoothd is not running"), name: nil))
        let fresh = session.handle(.adapter(.poweredOn, name: "hci0")).applicationTicket!
        XCTAssertNotEqual(old, fresh)
        XCTAssertEqual(session.handle(.applicationFailed(old, "org.freedesktop.DBus.Error.NoReply")), [])
        XCTAssertEqual(session.application, .pending(fresh))
        XCTAssertEqual(session.handle(.applicationRegistered(fresh)).events, [.registered])
    }

    func testRegistrationFailuresAreReportedAndNotRetriedInALoop() {
        var session = PeripheralSession()
        _ = session.handle(.adapter(.poweredOn, name: "hci0"))
        let app = session.start().applicationTicket!
        let ad = session.handle(.applicationRegistered(app)).advertisementTicket!
        let failed = session.handle(.advertisementFailed(ad, "Maximum advertisements reached"))
        XCTAssertEqual(failed, [.report(.error("Maximum advertisements reached", from: nil))])
        XCTAssertFalse(session.wantsAdvertising)
        XCTAssertNil(session.handle(.adapter(.poweredOff, name: "hci0")).advertisementTicket)
        XCTAssertNil(session.handle(.adapter(.poweredOn, name: "hci0")).advertisementTicket)
        XCTAssertNotNil(session.start().advertisementTicket, "start tries again")
    }

    func testReleasedAdvertisementIsReportedAndNotReRegisteredUntilStart() {
        var session = PeripheralSession.advertising()
        XCTAssertEqual(session.handle(.advertisementReleased).events, [.stopped(.released)])
        XCTAssertEqual(session.advertisement, .absent)
        XCTAssertNil(session.handle(.connected(centralA)).advertisementTicket)
        XCTAssertNotNil(session.start().advertisementTicket)
    }

    func testReleaseBeforeThePowerOffSignalStillResumesOnPowerOn() {
        var session = PeripheralSession.advertising()
        _ = session.handle(.advertisementReleased)
        _ = session.handle(.adapter(.poweredOff, name: "hci0"))
        XCTAssertNotNil(session.handle(.adapter(.poweredOn, name: "hci0")).advertisementTicket)
    }

    func testAdapterStatesAreReportedOnceEach() {
        var session = PeripheralSession()
        XCTAssertEqual(session.handle(.adapter(.poweredOff, name: "hci0")).eventNames, ["state"])
        XCTAssertEqual(session.handle(.adapter(.poweredOff, name: "hci0")), [])
        let denied = session.handle(.adapter(.notPermitted("add yourself to the bluetooth group"), name: nil))
        XCTAssertEqual(denied.events, [.state(.notPermitted("add yourself to the bluetooth group"), adapter: nil)])
    }

    func testQuitUnregistersWhatIsRegistered() {
        var session = PeripheralSession.advertising()
        let actions = session.quit()
        XCTAssertEqual(actions, [.unregisterAdvertisement, .report(.stopped(.quit)), .unregisterApplication])
        XCTAssertEqual(session.quit(), [])
    }
}
