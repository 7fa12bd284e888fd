import RelayEndpoint
import RelayProtocol
import XCTest

/// On a link that loses nothing but queues a window's worth (a BLE link through bluetoothd: 48 KB/s,
/// 30 ms latency with jitter), nothing is ever sent twice.
final class CleanLinkTests: XCTestCase {
    func testNothingIsResentOnALinkThatLosesNothing() {
        var settings = DeliverySimulation.Settings(seed: 5, messages: 20)
        settings.lossRate = 0
        settings.burstRate = 0
        settings.duplicateRate = 0
        settings.reorderRate = 0
        settings.dropsPerHour = 0
        settings.bandwidth = 48_000
        settings.frameBytes = 485
        settings.latency = 0.03
        settings.jitter = 0.03
        var simulation = DeliverySimulation(settings)
        let report = simulation.run()
        XCTAssertEqual(report.failures, [])
        XCTAssertEqual(report.delivered, [20, 20])
        XCTAssertEqual(report.resentBytes, 0)
    }
}
