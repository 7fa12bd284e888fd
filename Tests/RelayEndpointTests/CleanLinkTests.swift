import RelayEndpoint
import RelayProtocol
import RelaySimulation
import XCTest

/// On a link that loses nothing but queues a window's worth (a BLE link through bluetoothd: 48 KB/s,
/// 30 ms latency with jitter), nothing is ever sent twice.
final class CleanLinkTests: XCTestCase {
    func testNothingIsResentOnALinkThatLosesNothing() {
        var simulation = DeliverySimulation(Self.cleanLink(seed: 5))
        let report = simulation.run()
        XCTAssertEqual(report.failures, [])
        XCTAssertEqual(report.delivered, [20, 20])
        XCTAssertEqual(report.resentBytes, 0)
    }

    /// A receiver that is not scheduled for longer than the retransmission time-out (a loaded
    /// machine) times its sender out, but loses nothing: what goes again is the first frame of each
    /// time-out, not the window that was queued behind it.
    func testAStalledReceiverCostsOneFramePerTimeOutNotTheWindow() {
        var settings = Self.cleanLink(seed: 7)
        settings.stallEvery = 9
        settings.stallLength = 1.6
        var simulation = DeliverySimulation(settings)
        let report = simulation.run()
        XCTAssertEqual(report.failures, [])
        XCTAssertEqual(report.delivered, [20, 20])
        XCTAssertGreaterThan(report.timeouts, 4, "the stalls time the senders out")
        XCTAssertLessThanOrEqual(report.resentBytes, report.timeouts * settings.frameBytes)
        XCTAssertLessThanOrEqual(report.duplicateFrames, report.timeouts, "only time-outs send a frame twice")
    }

    /// Two 512 KiB transfers started together, one each way, each sender handing over whatever its
    /// flight allows (bluetoothd queues it, and each side's acknowledgements wait behind its own
    /// data): they share the link. When the first arrives, the other has at least 80 % of its
    /// bytes (the link gives each direction its full rate). Without the two-way flight
    /// (`TransferSenderConfiguration.twoWayGain`) the direction that fell behind stayed behind:
    /// 43-78 % on these seeds.
    func testTwoTransfersStartedTogetherShareTheLink() throws {
        for seed: UInt64 in [11, 12, 13, 14, 15] {
            var settings = Self.cleanLink(seed: seed)
            settings.messages = 1
            settings.fixedSize = 512 << 10
            settings.maxSize = 512 << 10
            settings.handOver = 60
            settings.window = 64 << 10
            var simulation = DeliverySimulation(settings)
            let report = simulation.run()
            XCTAssertEqual(report.failures, [], "seed \(seed)")
            XCTAssertEqual(report.delivered, [1, 1], "seed \(seed)")
            let first = try XCTUnwrap(report.firstArrival, "seed \(seed)")
            XCTAssertGreaterThanOrEqual(
                first.otherShare, 0.8,
                "seed \(seed): the first arrived at \(first.at) s from \(first.from), the other direction had "
                    + "\(Int(first.otherShare * 100)) % of its bytes")
        }
    }

    private static func cleanLink(seed: UInt64) -> DeliverySimulation.Settings {
        var settings = DeliverySimulation.Settings(seed: seed, messages: 20)
        settings.lossRate = 0
        settings.burstRate = 0
        settings.duplicateRate = 0
        settings.reorderRate = 0
        settings.dropsPerHour = 0
        settings.bandwidth = 48_000
        settings.frameBytes = 485
        settings.latency = 0.03
        settings.jitter = 0.03
        return settings
    }
}
