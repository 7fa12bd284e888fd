import Foundation
import RelayApp
import RelayBlueZ
import RelayCLI
import RelayEndpoint
import RelayProtocol
import XCTest

/// Received files on disk: `NAME.part` grows as bytes come, becomes `NAME` when checked, goes
/// when the transfer is dropped.
final class IncomingFilesTests: XCTestCase {
    private var directory = ""
    private let key = IncomingFileKey(
        from: PeerName(.central, BluetoothAddress("00:AA:01:01:00:01")), transfer: TransferID(7))

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "relay-incoming-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private var listing: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted() }

    private func size(_ name: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: directory + "/" + name))?[.size] as? Int
    }

    func testThePartFileGrowsAsBytesComeAndTakesItsNameWhenCommitted() {
        let files = IncomingFiles()
        let name = ReceivedFileName(Array("photo.jpg".utf8))
        XCTAssertNil(files.perform(.open(key, directory: directory, name: name)))
        XCTAssertEqual(listing, ["photo.jpg.part"])
        XCTAssertNil(files.perform(.append(key, [UInt8](repeating: 1, count: 1000))))
        XCTAssertEqual(size("photo.jpg.part"), 1000, "written as it comes, not at the end")
        XCTAssertNil(files.perform(.append(key, [2, 3])))
        XCTAssertEqual(size("photo.jpg.part"), 1002)
        // A file of that name appears meanwhile: it is left alone.
        FileManager.default.createFile(atPath: directory + "/photo.jpg", contents: Data([9]))
        let (path, problem) = files.commit(key)
        XCTAssertNil(problem)
        XCTAssertEqual(path, directory + "/photo (1).jpg")
        XCTAssertEqual(listing, ["photo (1).jpg", "photo.jpg"])
        XCTAssertEqual(size("photo.jpg"), 1, "never overwritten")
        XCTAssertEqual(FileManager.default.contents(atPath: path!)?.count, 1002)
        XCTAssertEqual(files.openCount, 0)
    }

    func testADroppedTransferLeavesNothingBehind() {
        let files = IncomingFiles()
        XCTAssertNil(files.perform(.open(key, directory: directory, name: ReceivedFileName(Array("a.bin".utf8)))))
        XCTAssertNil(files.perform(.append(key, [1, 2, 3])))
        XCTAssertNil(files.perform(.discard(key)))
        XCTAssertEqual(listing, [])
        XCTAssertEqual(files.commit(key).path, nil, "nothing left to name")
        // A program that stops with a file on its way removes the part file too.
        XCTAssertNil(files.perform(.open(key, directory: directory, name: ReceivedFileName(Array("b.bin".utf8)))))
        files.discardAll()
        XCTAssertEqual(listing, [])
    }

    func testAFolderThatCannotBeWrittenIsOneProblemNotOnePerChunk() {
        let files = IncomingFiles()
        let problem = files.perform(
            .open(key, directory: directory + "/missing", name: ReceivedFileName(Array("a.bin".utf8))))
        XCTAssertEqual(
            problem,
            "cannot save the message as \(directory)/missing/a.bin: No such file or directory (check --save-dir)")
        XCTAssertNil(files.perform(.append(key, [1])), "its later bytes are skipped quietly")
        XCTAssertEqual(files.commit(key).problem, problem, "and the message says it was not saved")
    }

    // MARK: Limits (issue 30, item 3)

    func testAFileThatWouldLeaveTooLittleFreeSpaceIsNotWrittenOn() throws {
        // Asking to keep more free than any disk has: the first bytes are refused.
        let result = FileWriter.writeNew([1, 2, 3], in: directory, minimumFree: Int.max / 2) { "a\($0).bin" }
        guard case .failure(let failure) = result else { return XCTFail("written: \(result)") }
        XCTAssertTrue(failure.reason.hasPrefix("the disk would keep less than "), failure.reason)
        XCTAssertEqual(listing, [], "no part file is left")
        // With the real reserve (64 MiB) a small file is written on a disk that has it.
        XCTAssertNoThrow(try FileWriter.writeNew([1, 2, 3], in: directory) { "b\($0).bin" }.get())
        XCTAssertEqual(listing, ["b0.bin"])
    }

    /// A burst of 60, then one a second; 300 a minute from all senders together, so a stranger whose address
    /// changes gets no new budget each time (issue 46, item 10). One UART write of 255 lines or a stream of
    /// empty protocol-1 messages makes at most 60 files. Each refusal is the message's `error` line and, for
    /// protocol 2, a `not saved` acknowledgement.
    func testASenderIsSavedSixtyMessagesAMinuteThenOneASecond() {
        var arrivals = MessageArrivals(saveDirectory: directory)
        let sender = PeerName(.central, BluetoothAddress("00:AA:01:01:00:01"))
        let other = PeerName(.central, BluetoothAddress("00:AA:01:02:00:02"))
        let burst = (0..<61).map { arrivals.next(Message(text: "m\($0)"), id: $0, from: sender, at: 10) }
        XCTAssertEqual(burst.filter { $0.refusal == nil }.count, MessageArrivals.savesPerMinute)
        let refused = burst.last!
        XCTAssertEqual(refused.refusal, "not saved: central 00:AA:01:01:00:01 sent more than 60 messages a minute")
        let (report, problem) = refused.perform(files: IncomingFiles())
        XCTAssertNil(report.saved)
        XCTAssertEqual(problem, refused.refusal, "reported as the problem")
        XCTAssertNil(arrivals.next(Message(text: "other"), id: 0, from: other, at: 10).refusal, "each sender its own")
        XCTAssertNotNil(arrivals.next(Message(text: "x"), id: 61, from: sender, at: 10.5).refusal)
        XCTAssertNil(arrivals.next(Message(text: "y"), id: 62, from: sender, at: 11.1).refusal, "one a second")
        XCTAssertEqual(listing.count, 0, "nothing was performed but the refusal")
        // A protocol-2 message refused this way is acknowledged not saved.
        let transferred = (0..<2).map {
            arrivals.next(Message(text: "t"), id: $0, from: sender, transfer: TransferID(UInt16($0)), at: 11.2)
        }
        XCTAssertEqual(
            transferred.last?.receipt(saved: transferred.last!.perform(files: IncomingFiles()).problem == nil)?.saved,
            false)
    }

    func testSendersWhoseAddressChangesShareOneBudget() {
        // Issue 46 item 10: each new address used to bring a fresh budget of 60.
        var arrivals = MessageArrivals(saveDirectory: directory)
        var saved = 0
        var refusals: Set<String> = []
        for sender in 0..<10 {
            let address = BluetoothAddress(String(format: "4A:00:00:00:00:%02X", sender))
            for index in 0..<60 {
                let arrival = arrivals.next(
                    Message(text: "m"), id: index, from: PeerName(.central, address), at: 10 + Double(sender) / 100)
                if let refusal = arrival.refusal { refusals.insert(refusal) } else { saved += 1 }
            }
        }
        XCTAssertEqual(saved, MessageArrivals.savesPerMinuteFromAll)
        XCTAssertEqual(refusals, ["not saved: more than 300 messages a minute came from all senders"])
        // Five a second come back for everyone.
        let later = arrivals.next(
            Message(text: "n"), id: 0, from: PeerName(.central, BluetoothAddress("4A:00:00:00:01:00")), at: 10.1)
        XCTAssertNotNil(later.refusal)
        let afterASecond = (0..<6).map {
            arrivals.next(
                Message(text: "n"), id: $0, from: PeerName(.central, BluetoothAddress("4A:00:00:00:02:00")), at: 11.2)
        }
        XCTAssertTrue((5...6).contains(afterASecond.filter { $0.refusal == nil }.count), "about five a second")
    }

    func testNoFileIsCreatedOnAFileSystemShortOfInodes() throws {
        var info = statvfs()
        guard statvfs(directory, &info) == 0, info.f_files > 0 else {
            throw XCTSkip("this file system does not count inodes")
        }
        // Asking to keep more inodes free than the file system has: nothing is created.
        let result = PartFile.create(in: directory, minimumInodes: Int(info.f_favail) + 1_000_000) { "i\($0).bin" }
        guard case .failure(let failure) = result else { return XCTFail("created: \(result)") }
        XCTAssertTrue(failure.reason.hasPrefix("its file system would keep fewer than "), failure.reason)
        XCTAssertEqual(listing, [])
        XCTAssertNoThrow(try FileWriter.writeNew([1], in: directory) { "j\($0).bin" }.get(), "the real reserve")
        XCTAssertEqual(listing, ["j0.bin"])
    }
}
