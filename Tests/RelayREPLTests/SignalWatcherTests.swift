import Glibc
import RelayRuntime
import XCTest

final class SignalWatcherTests: XCTestCase {
    func testSignalsArriveAsLoopCallbacksAndDispositionsAreRestored() throws {
        let loop = EventLoop()
        var received: [Int32] = []
        let watcher = try XCTUnwrap(SignalWatcher(loop: loop, signals: [SIGUSR1, SIGUSR2]) { received.append($0) })
        raise(SIGUSR1)
        raise(SIGUSR2)
        raise(SIGUSR1)
        XCTAssertEqual(received, [], "handlers must run on the loop, not inside the signal handler")
        XCTAssertTrue(loop.run(until: { received.count == 3 }, timeout: 10))
        XCTAssertEqual(received, [SIGUSR1, SIGUSR2, SIGUSR1])
        watcher.stop()
        var current = sigaction()
        sigaction(SIGUSR1, nil, &current)
        XCTAssertNil(current.__sigaction_handler.sa_handler, "SIGUSR1 is not back to SIG_DFL")
    }
}
