import Glibc
import XCTest

@testable import RelayRuntime

final class EventLoopTests: XCTestCase {
    func testTimersFireInDeadlineOrder() {
        let loop = EventLoop()
        var fired: [String] = []
        loop.schedule(after: 0.03) { fired.append("late") }
        loop.schedule(after: 0.01) { fired.append("early") }
        loop.schedule(after: 0) { fired.append("now") }
        XCTAssertTrue(loop.run(until: { fired.count == 3 }, timeout: 5))
        XCTAssertEqual(fired, ["now", "early", "late"])
    }

    func testCancelledTimerNeverFires() {
        let loop = EventLoop()
        var fired = false
        let token = loop.schedule(after: 0.01) { fired = true }
        loop.cancel(token)
        var done = false
        loop.schedule(after: 0.05) { done = true }
        loop.run(until: { done }, timeout: 5)
        XCTAssertFalse(fired)
        XCTAssertFalse(loop.isActive(token))
    }

    func testReadableWatchWakesOnData() {
        let loop = EventLoop()
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer {
            close(fds[0])
            close(fds[1])
        }
        var received: [UInt8] = []
        loop.watch(fd: fds[0], for: .readable) { _ in
            var byte: UInt8 = 0
            if read(fds[0], &byte, 1) == 1 { received.append(byte) }
        }
        loop.schedule(after: 0.01) {
            var byte: UInt8 = 42
            _ = write(fds[1], &byte, 1)
        }
        XCTAssertTrue(loop.run(until: { !received.isEmpty }, timeout: 5))
        XCTAssertEqual(received, [42])
    }

    func testPausedWatchIsNotCalledAndHangupIsReported() {
        let loop = EventLoop()
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        var calls: [EventLoop.Readiness] = []
        let token = loop.watch(fd: fds[0], for: []) { calls.append($0) }
        close(fds[1])
        loop.runOnce(timeout: 0.02)
        XCTAssertTrue(calls.isEmpty)
        loop.update(token, interest: .readable)
        XCTAssertTrue(loop.run(until: { !calls.isEmpty }, timeout: 5))
        XCTAssertFalse(calls[0].intersection(.hangup).isEmpty)
    }

    func testRunUntilTimesOutWhenNothingHappens() {
        let loop = EventLoop()
        let start = EventLoop.monotonicNow()
        XCTAssertFalse(loop.run(until: { false }, timeout: 0.05))
        XCTAssertGreaterThanOrEqual(EventLoop.monotonicNow() - start, 0.04)
    }

    func testPostedWorkRunsBeforeWaiting() {
        let loop = EventLoop()
        var order: [Int] = []
        loop.post {
            order.append(1)
            loop.post { order.append(2) }
        }
        loop.runOnce(timeout: 0)
        XCTAssertEqual(order, [1, 2])
    }

    func testWorkPostedBetweenTurnsEndsRunUntilWithoutAnotherEvent() {
        let loop = EventLoop()
        var done = false
        loop.post { done = true }
        // No fd and no timer: a loop that blocked in poll(2) after running the
        // posted work would only return at the 30 s time-out.
        let start = EventLoop.monotonicNow()
        XCTAssertTrue(loop.run(until: { done }, timeout: 30))
        XCTAssertLessThan(EventLoop.monotonicNow() - start, 15, "run(until:) blocked after posted work")
    }
}
