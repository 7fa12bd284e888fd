import RelayDBus
import RelayRuntime
import RelayTestSupport
import XCTest

/// A burst of queued messages is read and dispatched in few loop turns (one wake-up drains
/// the socket), in order, none lost; and the loop still serves other watches in between.
final class BurstTests: XCTestCase {
    private var bus: PrivateBus!

    override func setUpWithError() throws { bus = try PrivateBus() }

    override func tearDown() {
        bus.stop()
        bus = nil
    }

    /// Sends `count` signals of `payload` bytes from a connection on its own loop and waits
    /// until the bus has handled all of them (a round trip after them), so they are queued on
    /// the listener's socket before the listener's loop runs.
    private func emitBurst(count: Int, payload: Int) throws -> (EventLoop, DBusConnection) {
        let emitterLoop = EventLoop()
        let emitter = try bus.connect(emitterLoop)
        for index in 0..<count {
            try emitter.emitSignal(
                path: "/burst", interface: "org.example.Burst", member: "Chunk",
                arguments: [.uint32(UInt32(index)), .bytes([UInt8](repeating: UInt8(index & 0xff), count: payload))])
        }
        XCTAssertNotNil(
            emitterLoop.call(emitter, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId"))
        return (emitterLoop, emitter)
    }

    func testQueuedBurstIsDispatchedInOrderInFewTurns() throws {
        let loop = EventLoop()
        let listener = try bus.connect(loop)
        var received: [UInt32] = []
        var intact = true
        let subscription = listener.subscribe(MatchRule(interface: "org.example.Burst")) { signal in
            guard case .uint32(let index)? = signal.arguments.first else { return }
            received.append(index)
            if let bytes = signal.arguments.last?.asBytes {
                intact = intact && bytes.count == 1000 && bytes.allSatisfy { $0 == UInt8(index & 0xff) }
            } else {
                intact = false
            }
        }
        // The match rule is in place once a round trip on the listener has completed.
        XCTAssertNotNil(
            loop.call(listener, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId"))

        let count = 100  // 100 signals of ~1 KiB: about 50 libdbus reads of 2 KiB
        let (emitterLoop, emitter) = try emitBurst(count: count, payload: 1000)
        let before = loop.turns
        XCTAssertTrue(loop.run(until: { received.count == count }, timeout: 20))
        let turns = loop.turns - before
        print("BurstTests: \(count) queued signals of 1 KiB received in \(turns) loop turns")
        XCTAssertEqual(received, (0..<UInt32(count)).map { $0 })
        XCTAssertTrue(intact)
        // One read per turn would need about 50 turns; draining the socket per wake-up needs a few.
        XCTAssertLessThanOrEqual(turns, 10, "turns to receive \(count) queued signals")
        withExtendedLifetime((subscription, emitterLoop, emitter)) {}
    }

    func testDrainingStopsAtTheBurstAndOtherWatchesStillRun() throws {
        let loop = EventLoop()
        let listener = try bus.connect(loop)
        var received = 0
        let subscription = listener.subscribe(MatchRule(interface: "org.example.Burst")) { _ in received += 1 }
        XCTAssertNotNil(
            loop.call(listener, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId"))
        var pipeEnds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&pipeEnds), 0)
        defer {
            close(pipeEnds[0])
            close(pipeEnds[1])
        }
        var pipeSeen = false
        let token = loop.watch(fd: pipeEnds[0], for: .readable) { _ in pipeSeen = true }
        var byte: UInt8 = 1
        XCTAssertEqual(write(pipeEnds[1], &byte, 1), 1)
        let (emitterLoop, emitter) = try emitBurst(count: 300, payload: 1000)
        XCTAssertTrue(loop.run(until: { received == 300 && pipeSeen }, timeout: 20))
        // Calls still work after a drained burst (replies are dispatched like signals).
        XCTAssertNotNil(
            loop.call(listener, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId"))
        loop.cancel(token)
        withExtendedLifetime((subscription, emitterLoop, emitter)) {}
    }
}
