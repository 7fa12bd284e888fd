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
                guard case .report(.progress(_, .incoming, _, _, let rate, _, _)) = outcome else { return nil }
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

    /// With `--save-dir` a file goes to its part file as it comes; without one nothing is written.
    func testAFileBecomesPartFileStepsOnlyWithASaveDirectory() {
        let file = MessageHeader(kind: .binary, length: 6, checksum: 0, name: Array("../a.txt".utf8))
        let digest = SHA256.hash([1, 2, 3, 4, 5, 6])
        let actions: [TransferReceiver.Action] = [
            .started(transfer, file), .write(transfer, [1, 2, 3]), .write(transfer, [4, 5, 6]),
            .deliverFile(transfer, file, sha256: digest),
        ]
        let key = IncomingFileKey(from: sender, transfer: transfer)
        var reports = InboundReports()
        var arrivals = MessageArrivals(saveDirectory: "/srv/in")
        let outcomes = reports.translate(actions, from: sender, arrivals: &arrivals, at: 1)
        let steps = outcomes.compactMap { if case .file(let step) = $0 { return step } else { return nil } }
        XCTAssertEqual(
            steps,
            [
                .open(key, directory: "/srv/in", name: ReceivedFileName(Array("../a.txt".utf8))),
                .append(key, [1, 2, 3]), .append(key, [4, 5, 6]),
            ])
        guard case .deliver(let arrival)? = outcomes.last else { return XCTFail("\(outcomes)") }
        XCTAssertEqual(arrival.content, .file(key))
        XCTAssertEqual(arrival.report.sha256, digest.hex)
        XCTAssertEqual(arrival.report.length, 6)
        XCTAssertEqual(arrival.report.name, "../a.txt", "shown as sent; saved as ReceivedFileName makes it")

        var unsaved = MessageArrivals(saveDirectory: nil)
        var others = InboundReports()
        let none = others.translate(actions, from: sender, arrivals: &unsaved, at: 1)
        XCTAssertFalse(none.contains { if case .file = $0 { return true } else { return false } })

        var dropping = InboundReports()
        var saving = MessageArrivals(saveDirectory: "/srv/in")
        let dropped = dropping.translate(
            [
                .started(transfer, file),
                .dropped(
                    TransferReceiver.Dropped(
                        transfer: transfer, header: file, received: 3, cause: .stalled(seconds: 120))),
            ], from: sender, arrivals: &saving, at: 1)
        XCTAssertTrue(dropped.contains(.file(.discard(key))), "a dropped file's part file goes")
    }

    /// A file's part file is the one opened when its header came, whoever the sender is said to
    /// be later (a resume from another address, a new peer's welcome closing the old partial).
    func testAFileKeepsThePartFileItOpenedWith() {
        let file = MessageHeader(kind: .binary, length: 6, checksum: 0, name: Array("a".utf8))
        let other = PeerName(.peripheral, BluetoothAddress("00:AA:01:09:00:09"))
        var reports = InboundReports()
        var arrivals = MessageArrivals(saveDirectory: "/srv/in")
        let opened = reports.translate([.started(transfer, file)], from: sender, arrivals: &arrivals, at: 1)
        let key = IncomingFileKey(from: sender, transfer: transfer)
        XCTAssertTrue(opened.contains(.file(.open(key, directory: "/srv/in", name: ReceivedFileName(Array("a".utf8))))))
        let later = reports.translate(
            [
                .write(transfer, [1, 2]),
                .dropped(
                    TransferReceiver.Dropped(transfer: transfer, header: file, received: 2, cause: .senderMovedOn)),
            ], from: other, arrivals: &arrivals, at: 2)
        let steps: [IncomingFileStep] = later.compactMap {
            if case .file(let step) = $0 { return step } else { return nil }
        }
        XCTAssertEqual(steps, [.append(key, [1, 2]), .discard(key)])
    }

    /// Two senders' transfers of the same number keep their own live lines.
    func testLiveLinesOfTwoSendersDoNotMeet() {
        let a = TransferEvent.progress(
            id: 1, direction: .incoming, bytes: 1, total: 9, rate: 0, name: nil, peer: sender)
        let b = TransferEvent.progress(
            id: 1, direction: .incoming, bytes: 1, total: 9, rate: 0, name: nil,
            peer: PeerName(.peripheral, BluetoothAddress("00:AA:01:09:00:09")))
        guard case .update(let keyA, _)? = a.liveLine, case .update(let keyB, _)? = b.liveLine else {
            return XCTFail("progress is a live line")
        }
        XCTAssertNotEqual(keyA, keyB)
        let name = TransferEvent.progress(
            id: 2, direction: .incoming, bytes: 0, total: 9, rate: 0, name: "x\n\u{1B}[2J\u{202E}gpj.exe", peer: sender)
        XCTAssertEqual(
            name.humanDescription,
            "receiving x\\x0A\\x1B[2J\\u{202E}gpj.exe: 0 of 9 bytes (0 %), 0 bytes/s, time left not known yet",
            "a hostile name stays on one row")
    }
}
