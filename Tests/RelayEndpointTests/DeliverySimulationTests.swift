import Foundation
import RelayEndpoint
import RelayProtocol
import XCTest

/// The version-2 delivery machines on a bad simulated link: every message arrives exactly once,
/// intact and in order; what is resent stays within what was lost plus a window per loss event;
/// what a receiver holds out of order stays within the window.
final class DeliverySimulationTests: XCTestCase {
    /// Messages each way; `RELAY_SIMULATION_MESSAGES` overrides (make test runs 10 000).
    private var messages: Int {
        ProcessInfo.processInfo.environment["RELAY_SIMULATION_MESSAGES"].flatMap(Int.init) ?? 300
    }

    func testEveryMessageArrivesOnceIntactOverALossyDroppingLink() {
        var settings = DeliverySimulation.Settings(seed: 20_261_201, messages: messages)
        if let trace = ProcessInfo.processInfo.environment["RELAY_SIMULATION_TRACE"],
            let number = UInt16(trace.dropFirst(2))
        {
            settings.trace = (trace.hasPrefix("a") ? .a : .b, number)
        }
        var simulation = DeliverySimulation(settings)
        let report = simulation.run()
        check(report, simulation.settings)
    }

    private func check(_ report: DeliverySimulation.Report, _ settings: DeliverySimulation.Settings) {
        XCTAssertEqual(report.failures, [], "no drop, failure or wrong message")
        XCTAssertEqual(report.delivered, [settings.messages, settings.messages], "every message both ways")
        XCTAssertGreaterThan(report.outages, 0, "the link dropped at least once")
        XCTAssertGreaterThan(report.resumed, 0, "transfers resumed")
        let bound = report.lostDataBytes + settings.window * report.lossEvents
        XCTAssertLessThanOrEqual(report.resentBytes, bound, "resent at most what was lost plus a window per loss event")
        XCTAssertLessThanOrEqual(report.maxOutOfOrder, settings.window, "memory bounded by the window")
        print(
            "simulation: \(settings.messages) messages each way, \(report.payloadBytes) bytes, "
                + "\(Int(report.simulatedSeconds)) s simulated, \(report.outages) drops, \(report.lostFrames) frames lost "
                + "(\(report.lostDataBytes) data bytes, \(report.lossEvents) events), resent \(report.resentBytes) "
                + "of \(report.sentBytes) bytes, \(report.resumed) resumes, max out of order \(report.maxOutOfOrder)")
    }
}
