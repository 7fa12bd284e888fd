import RelayApp
import RelayBlueZ
import RelayProtocol
import XCTest

@testable import relay_peripheral

/// Two of relay-peripheral's parts on their own, plain values with time as an input: the
/// advertising life cycle (`PeripheralRegistrations`) and the centrals' channels (`PeripheralLanes`).
final class PeripheralPartsTests: XCTestCase {
    // MARK: PeripheralRegistrations

    func testStartAsksForBothAndAdvertisingNeedsBothAnswers() throws {
        var registrations = PeripheralRegistrations()
        registrations.start()
        let requests = registrations.reconcile()
        let application = try XCTUnwrap(requests.application)
        let advertisement = try XCTUnwrap(requests.advertisement, "asked for together: one round trip")
        XCTAssertEqual(registrations.advertisementRegistered(advertisement, poweredOn: true), .active)
        XCTAssertFalse(registrations.isAdvertising, "not before the service is registered")
        XCTAssertTrue(registrations.applicationRegistered(application))
        XCTAssertTrue(registrations.isAdvertising)
        XCTAssertFalse(registrations.applicationRegistered(application), "a late second answer changes nothing")
        XCTAssertEqual(registrations.reconcile(), .init(), "nothing more to ask for")
    }

    func testAnAdvertisementStoppedWhileItsRequestWasOnItsWayIsTakenBack() throws {
        var registrations = PeripheralRegistrations()
        registrations.start()
        let advertisement = try XCTUnwrap(registrations.reconcile().advertisement)
        registrations.stop()
        XCTAssertEqual(registrations.reconcile(), .init(), "a pending request is answered first")
        XCTAssertEqual(registrations.advertisementRegistered(advertisement, poweredOn: true), .withdraw)
        XCTAssertEqual(registrations.advertisement, .absent)
    }

    func testRefusedWhileCentralsAreConnectedIsHeldSaidOnceAndAskedAgainWhenTheyLeave() throws {
        var registrations = PeripheralRegistrations()
        registrations.start()
        let first = registrations.reconcile()
        XCTAssertTrue(registrations.applicationRegistered(try XCTUnwrap(first.application)))
        XCTAssertEqual(
            registrations.advertisementRegistered(try XCTUnwrap(first.advertisement), poweredOn: true), .active)
        XCTAssertNil(
            registrations.renew(extendedAdvertising: false, poweredOn: true), "Linux restarts legacy advertising")
        let renewal = try XCTUnwrap(registrations.renew(extendedAdvertising: true, poweredOn: true))
        XCTAssertEqual(registrations.advertisementFailed(renewal, centrals: 2), .held(centrals: 2))
        XCTAssertTrue(registrations.isHeld)
        XCTAssertTrue(registrations.wantsAdvertising, "not an error: it waits for a central to leave")
        let again = try XCTUnwrap(registrations.reconcile().advertisement, "asked again as one leaves")
        XCTAssertEqual(registrations.advertisementFailed(again, centrals: 1), .none, "said once")
        let last = try XCTUnwrap(registrations.reconcile().advertisement)
        XCTAssertEqual(
            registrations.advertisementFailed(last, centrals: 0), .reconcile, "everyone left: asked as if new")
        XCTAssertFalse(registrations.isHeld)
    }

    func testAFailedServiceTakesItsAdvertisementBackAndLosingBluetoothdForgetsBoth() throws {
        var registrations = PeripheralRegistrations()
        registrations.start()
        let requests = registrations.reconcile()
        XCTAssertEqual(
            registrations.advertisementRegistered(try XCTUnwrap(requests.advertisement), poweredOn: true), .active)
        XCTAssertTrue(registrations.awaitsApplication(try XCTUnwrap(requests.application)))
        XCTAssertTrue(registrations.applicationFailed(), "a service that is not there is never advertised")
        XCTAssertFalse(registrations.wantsAdvertising)
        XCTAssertEqual(registrations.reconcile(), .init())

        var running = PeripheralRegistrations()
        running.start()
        let both = running.reconcile()
        XCTAssertTrue(running.applicationRegistered(try XCTUnwrap(both.application)))
        XCTAssertEqual(running.advertisementRegistered(try XCTUnwrap(both.advertisement), poweredOn: true), .active)
        var poweredOff = running
        XCTAssertTrue(poweredOff.paused(lostBlueZ: false))
        XCTAssertEqual(poweredOff.application, .active, "bluetoothd keeps the service across a power cycle")
        XCTAssertTrue(running.paused(lostBlueZ: true))
        XCTAssertEqual(running.application, .absent, "bluetoothd forgets every registration when it goes")
        XCTAssertEqual(running.advertisement, .absent)
    }

    // MARK: PeripheralLanes

    private func lane(_ address: BluetoothAddress, connection: UInt16? = nil) -> PeripheralLane {
        PeripheralLane(
            address: address, connection: connection.map(ConnectionHandle.init), mtu: MTU(laneChannelMTU: 1000),
            outbox: LaneOutbox(unitSize: 100))
    }

    func testAValueSplitAcrossReadsIsJoinedAndItsWaitIsTimedFromItsFirstBytes() throws {
        var lanes = PeripheralLanes()
        lanes.open(LaneID(1), lane(centralA))
        let framed = LaneFraming.encode([1, 2, 3, 4, 5])
        XCTAssertEqual(try lanes.receive(Array(framed.prefix(3)), on: LaneID(1), at: 10), [])
        XCTAssertEqual(lanes.deadlines(at: 11).incompleteSince, 10)
        XCTAssertEqual(try lanes.receive(Array(framed.dropFirst(3)), on: LaneID(1), at: 12), [[1, 2, 3, 4, 5]])
        XCTAssertNil(lanes.deadlines(at: 12).incompleteSince, "nothing incomplete any more")
        XCTAssertNil(try lanes.receive([1], on: LaneID(9), at: 12), "not open")
    }

    func testBrokenFramingClosesTheChannel() {
        var lanes = PeripheralLanes()
        lanes.open(LaneID(1), lane(centralA))
        XCTAssertThrowsError(try lanes.receive([0x00, 0x00], on: LaneID(1), at: 1)) {
            XCTAssertEqual($0 as? LaneFrameError, .emptyValue)
        }
        XCTAssertNil(lanes[LaneID(1)])
    }

    func testACentralsChannelsCloseTogetherAndAnotherLinksChannelIsSeen() {
        var lanes = PeripheralLanes()
        lanes.open(LaneID(3), lane(centralA, connection: 0x40))
        lanes.open(LaneID(1), lane(centralA, connection: 0x40))
        lanes.open(LaneID(2), lane(centralB))
        XCTAssertTrue(lanes.hasChannel(of: centralA, onOtherLinkThan: ConnectionHandle(0x41)))
        XCTAssertFalse(lanes.hasChannel(of: centralA, onOtherLinkThan: ConnectionHandle(0x40)))
        XCTAssertFalse(lanes.hasChannel(of: centralB, onOtherLinkThan: ConnectionHandle(0x40)), "its link is unknown")
        XCTAssertEqual(lanes.closeAll(of: centralA), [LaneID(1), LaneID(3)])
        XCTAssertEqual(lanes.ids, [LaneID(2)])
    }

    func testAFullChannelIsHandedNothingMoreUntilItCanTakeMore() throws {
        var lanes = PeripheralLanes()
        lanes.open(LaneID(1), lane(centralA))
        XCTAssertFalse(lanes.queue(LaneFraming.encode([7]), on: LaneID(5)), "not open")
        XCTAssertTrue(lanes.queue(LaneFraming.encode([UInt8](repeating: 7, count: 250)), on: LaneID(1)))
        XCTAssertTrue(lanes.holdValues)
        let units = try XCTUnwrap(lanes.takeUnsent(on: LaneID(1)))
        XCTAssertEqual(units.map(\.count), [100, 100, 52], "cut into the channel's units")
        lanes.took(1, full: true, on: LaneID(1), at: 1)
        XCTAssertNil(lanes.takeUnsent(on: LaneID(1)), "full")
        XCTAssertNotNil(lanes.deadlines(at: 2).stall, "a full channel is watched for a stall")
        lanes.writable(LaneID(1), at: 3)
        XCTAssertEqual(try XCTUnwrap(lanes.takeUnsent(on: LaneID(1))).map(\.count), [100, 52])
        lanes.took(2, full: false, on: LaneID(1), at: 3)
        XCTAssertFalse(lanes.holdValues)
    }
}
