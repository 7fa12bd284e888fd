import RelayApp
import RelayBlueZ
import RelayEndpoint
import RelayProtocol
import XCTest

/// A version-2 receiver's actions as both programs report them.
final class InboundReportsTests: XCTestCase {
    let sender = PeerName(.peripheral, BluetoothAddress("00:AA:01:00:00:00"))
    let transfer = TransferID(3)
    let header = MessageHeader(kind: .binary, length: 100_000, checksum: 0)

    private func progressRates(
        _ reports: inout InboundReports, _ steps: [(Double, TransferReceiver.Action)]
    ) -> [Double] {
        var arrivals = MessageArrivals(saveDirectory: nil)
        return steps.flatMap { time, action in
            reports.translate([action], from: sender, arrivals: &arrivals, at: time).compactMap { outcome -> Double? in
                guard case .report(.progress(_, .incoming, _, _, let rate)) = outcome else { return nil }
                return rate
            }
        }
    }

    /// `progress` in carries the bytes a second since the message started here.
    func testIncomingProgressCarriesTheRateSinceTheStart() {
        var reports = InboundReports()
        let rates = progressRates(
            &reports,
            [
                (10, .started(transfer, header)),
                (12, .progress(transfer, received: 20_000, total: 100_000)),
                (14, .progress(transfer, received: 60_000, total: 100_000)),
            ])
        XCTAssertEqual(rates, [10_000, 15_000])
    }

    /// A message resumed here (no start seen by these reports) counts from its first progress.
    func testAResumedMessageCountsFromItsFirstProgress() {
        var reports = InboundReports()
        let rates = progressRates(
            &reports,
            [
                (5, .progress(transfer, received: 50_000, total: 100_000)),
                (7, .progress(transfer, received: 58_000, total: 100_000)),
            ])
        XCTAssertEqual(rates, [0, 4_000])
    }
}
