import RelayCLI
import RelayRuntime
import XCTest

@testable import RelayREPL

final class EventJournalTests: XCTestCase {
    func testEventAfterTheMarkSatisfiesAWaitOnce() {
        let journal = EventJournal()
        journal.markCommandStart()
        journal.record("connected")
        var satisfied = 0
        XCTAssertNil(journal.wait(for: "connected") { satisfied += 1 })
        XCTAssertEqual(satisfied, 1)
        XCTAssertNotNil(journal.wait(for: "connected") { satisfied += 1 }, "the same event satisfied two waits")
        XCTAssertEqual(satisfied, 1)
        journal.record("connected")
        XCTAssertEqual(satisfied, 2)
    }

    func testEventBeforeTheMarkDoesNotCount() {
        let journal = EventJournal()
        journal.record("ready")
        journal.markCommandStart()
        var satisfied = false
        let waiter = journal.wait(for: "ready") { satisfied = true }
        XCTAssertNotNil(waiter)
        XCTAssertFalse(satisfied)
        journal.record("other")
        XCTAssertFalse(satisfied)
        journal.record("ready")
        XCTAssertTrue(satisfied)
        XCTAssertFalse(journal.hasWaiters)
    }

    func testCancelledWaiterIsNotCalledAndTheEventStaysAvailable() {
        let journal = EventJournal()
        var called = false
        let waiter = journal.wait(for: "x") { called = true }!
        journal.cancel(waiter)
        journal.record("x")
        XCTAssertFalse(called)
        XCTAssertEqual(journal.unusedCount(of: "x"), 1)
    }

    func testUnusedEventsAreCountedPerNameAndForgottenAtTheNextMark() {
        let journal = EventJournal()
        for _ in 0..<100_000 { journal.record("counter") }
        journal.record("other")
        XCTAssertEqual(journal.unusedCount(of: "counter"), 100_000)
        XCTAssertEqual(journal.sequence, 100_001)
        XCTAssertTrue(journal.consume("counter"))
        XCTAssertEqual(journal.unusedCount(of: "counter"), 99_999)
        journal.markCommandStart()
        XCTAssertEqual(journal.unusedCount(of: "counter"), 0)
        XCTAssertFalse(journal.consume("other"))
    }
}
