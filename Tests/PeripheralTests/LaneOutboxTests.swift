import RelayProtocol
import XCTest

@testable import relay_peripheral

/// One channel's own queue (`LaneOutbox`): units, the bound, and time full over a window.
final class LaneOutboxTests: XCTestCase {
    func testAValueIsCutIntoTheChannelsUnitsAndTakenInOrder() {
        var outbox = LaneOutbox(unitSize: 672)
        let value = LaneFraming.encode([UInt8](repeating: 9, count: 2000))
        XCTAssertTrue(outbox.add(value))
        XCTAssertEqual(outbox.bytes, 2002)
        let units = try! XCTUnwrap(outbox.takeUnsent())
        XCTAssertEqual(units.map(\.count), [672, 672, 658])
        XCTAssertEqual(units.flatMap { $0 }, value)
        XCTAssertNil(outbox.takeUnsent(), "nothing more until the socket answers")
        outbox.took(1, full: true, at: 5)
        XCTAssertEqual(outbox.bytes, 2002 - 672)
        XCTAssertNil(outbox.takeUnsent(), "full: nothing until it can take more")
        outbox.writable(at: 6)
        XCTAssertEqual(outbox.takeUnsent()?.flatMap { $0 }, Array(value[672...]))
        outbox.took(2, full: false, at: 6)
        XCTAssertEqual(outbox.bytes, 0)
        XCTAssertFalse(outbox.hasUnsent)
    }

    func testWhatComesBeyondTheBoundIsNotQueuedForTheChannel() {
        var outbox = LaneOutbox(unitSize: 8194)
        var queued = 0
        for k in 0..<40 where outbox.add(LaneFraming.encode([UInt8](repeating: UInt8(k), count: 8000))) { queued += 1 }
        XCTAssertEqual(queued, (LaneOutbox.limit + 8001) / 8002)
        XCTAssertLessThan(outbox.bytes, LaneOutbox.limit + 8002)
    }

    /// A repair sent again while its first copy still waits here is not queued twice; once the
    /// first copy went to the socket, a new one is.
    func testTheSameValueWaitingUnsentIsNotQueuedTwice() {
        var outbox = LaneOutbox(unitSize: 672)
        let value = LaneFraming.encode([UInt8](repeating: 3, count: 1500))
        let other = LaneFraming.encode([UInt8](repeating: 4, count: 1500))
        XCTAssertTrue(outbox.add(value))
        XCTAssertTrue(outbox.add(other))
        XCTAssertFalse(outbox.add(value), "the first copy has not left")
        XCTAssertFalse(outbox.add(other))
        XCTAssertEqual(outbox.bytes, value.count + other.count)
        let units = try! XCTUnwrap(outbox.takeUnsent())
        outbox.took(units.count, full: false, at: 1)
        XCTAssertTrue(outbox.add(value), "handed over: it may be sent again")
        XCTAssertEqual(outbox.takeUnsent()?.flatMap { $0 }, value)
    }

    /// With a window larger than the default (`--window`), an honest central's flight still fits.
    func testTheBoundIsTwiceALargerWindow() {
        var outbox = LaneOutbox(unitSize: 8194, window: 512 * 1024)
        var queued = 0
        for k in 0..<200 where outbox.add(LaneFraming.encode([UInt8](repeating: UInt8(k), count: 8000))) { queued += 1 }
        XCTAssertEqual(queued, (1024 * 1024 + 8001) / 8002)
    }

    func testTimeFullCountsOverTheWindowNotOneStretch() {
        var outbox = LaneOutbox(unitSize: 8194)
        _ = outbox.add(LaneFraming.encode([1]))
        // Full, one value taken every 4.9 s: full nearly all the time.
        var time = 0.0
        while time < 19 {
            _ = outbox.takeUnsent()
            outbox.took(0, full: true, at: time)
            time += 4.9
            outbox.writable(at: time)
            _ = outbox.add(LaneFraming.encode([1]))
            XCTAssertFalse(outbox.isStalled(at: time), "\(time)")
        }
        _ = outbox.takeUnsent()
        outbox.took(0, full: true, at: time)
        // Full without a break since 0: the deadline is 20 s after (at least half a second on).
        XCTAssertEqual(outbox.stallDeadline(at: time)!, max(20, time + 0.5), accuracy: 0.01)
        XCTAssertTrue(outbox.isStalled(at: 20))
    }

    func testAChannelThatWaitedItsTurnOnABusyRadioIsNotStalled() {
        // Issue 47: 13 s without a unit taken, then it drains like the others.
        var outbox = LaneOutbox(unitSize: 8194)
        _ = outbox.add(LaneFraming.encode([UInt8](repeating: 1, count: 8000)))
        _ = outbox.takeUnsent()
        outbox.took(0, full: true, at: 0)
        XCTAssertFalse(outbox.isStalled(at: 13))
        outbox.writable(at: 13)
        _ = outbox.takeUnsent()
        outbox.took(1, full: false, at: 13)
        XCTAssertNil(outbox.stallDeadline(at: 13))
        // Full again for 6 s later on: 19 s in the window, not 20.
        _ = outbox.add(LaneFraming.encode([1]))
        _ = outbox.takeUnsent()
        outbox.took(0, full: true, at: 20)
        XCTAssertFalse(outbox.isStalled(at: 26))
        outbox.writable(at: 26)
        // The window slides: at 40 only 3 s of the first stretch count, and the 6 s of the second.
        XCTAssertEqual(outbox.fullSeconds(at: 40), 9, accuracy: 0.001)
        XCTAssertNil(outbox.stallDeadline(at: 40))
    }
}
