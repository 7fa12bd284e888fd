import Foundation
import RelayApp
import RelayBlueZ
import RelayCLI
import RelayProtocol
import RelayTestSupport
import XCTest

/// Names from the far side are untrusted: what is saved is one safe component inside the folder.
final class ReceivedFileNameTests: XCTestCase {
    private func safe(_ bytes: [UInt8]) -> String { ReceivedFileName(bytes).value }
    private func safe(_ text: String) -> String { safe(Array(text.utf8)) }

    /// One path component that is not hidden, not an option, has no control character and fits.
    private func assertSafe(
        _ name: String, _ context: String, limit: Int = ReceivedFileName.maximumLength, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        XCTAssertFalse(name.isEmpty, context, file: file, line: line)
        XCTAssertFalse(name.contains("/") || name.contains("\\"), "\(context): \(name)", file: file, line: line)
        XCTAssertFalse(name.hasPrefix(".") || name.hasPrefix("-"), "\(context): \(name)", file: file, line: line)
        XCTAssertLessThanOrEqual(name.utf8.count, limit, context, file: file, line: line)
        XCTAssertFalse(
            name.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
            "\(context): control character", file: file, line: line)
        XCTAssertNotEqual(name, ".", file: file, line: line)
        XCTAssertNotEqual(name, "..", file: file, line: line)
    }

    func testOrdinaryNamesAreKept() {
        XCTAssertEqual(safe("photo.jpg"), "photo.jpg")
        XCTAssertEqual(safe("räksmörgås 写真 (1).jpg"), "räksmörgås 写真 (1).jpg")
        XCTAssertEqual(safe("a b.tar.gz"), "a b.tar.gz")
    }

    func testHostileNamesAreMadeSafe() {
        XCTAssertEqual(safe("../../etc/passwd"), "_._.._etc_passwd")
        XCTAssertEqual(safe("/tmp/x"), "_tmp_x")
        XCTAssertEqual(safe("a/b"), "a_b")
        XCTAssertEqual(safe(".."), "_.")
        XCTAssertEqual(safe("."), "_")
        XCTAssertEqual(safe(".bashrc"), "_bashrc")
        XCTAssertEqual(safe("-rf"), "_rf")
        XCTAssertEqual(safe("a\\b"), "a_b")
        XCTAssertEqual(safe([0]), "_")
        XCTAssertEqual(safe([0x61, 0, 0x62]), "a_b")
        XCTAssertEqual(safe([0x61, 0xFF, 0xC3, 0x62]), "a__b", "invalid UTF-8, byte by byte")
        XCTAssertEqual(safe("line\nbreak\r\u{1B}[31m"), "line_break__[31m")
        XCTAssertEqual(safe("photo\u{202E}gpj.exe"), "photo_gpj.exe", "no right-to-left override")
        XCTAssertEqual(safe([]), "file")
        let long = safe(String(repeating: "A", count: 4096))
        XCTAssertEqual(long, String(repeating: "A", count: ReceivedFileName.maximumLength))
        let longWithExtension = safe(String(repeating: "é", count: 300) + ".jpeg")
        XCTAssertTrue(longWithExtension.hasSuffix("é.jpeg"), longWithExtension)
        XCTAssertLessThanOrEqual(longWithExtension.utf8.count, ReceivedFileName.maximumLength)
        for name in [long, longWithExtension] { assertSafe(name, "long") }
    }

    /// The names of messages without one are not a sender's to take: a sender's `message-...`
    /// gets `_` in front (in any case: a save folder may be on a file system that ignores it).
    func testASenderCannotTakeANumberedName() {
        let numbered = ReceivedFileName.numbered(42, sender: "00_AA_01_02_00_02", suffix: "txt")
        XCTAssertEqual(numbered.value, "message-0042-00_AA_01_02_00_02.txt")
        XCTAssertEqual(safe(numbered.value), "_message-0042-00_AA_01_02_00_02.txt")
        XCTAssertEqual(safe("MESSAGE-0042-00_AA_01_02_00_02.txt"), "_MESSAGE-0042-00_AA_01_02_00_02.txt")
        XCTAssertEqual(safe("messages.txt"), "messages.txt")
        let long = safe("message-" + String(repeating: "A", count: 400) + ".txt")
        XCTAssertTrue(long.hasPrefix("_message-AAA") && long.hasSuffix("A.txt"), long)
        assertSafe(long, "long message- name")
    }

    /// A first character longer than the whole budget (`a` and 120 combining accents: 241 bytes) is
    /// cut away whole; what is left must not become a dotfile (`.bash_login` runs at the next login
    /// with `--save-dir ~`).
    /// Before (issue 30, item 2), `a` with 120 combining accents and `.bash_login` was saved as `.bash_login`:
    /// the name was cut only after its leading `.` or `-` was replaced.
    func testACutNeverLeavesADotfile() {
        let accented = "a" + String(repeating: "\u{301}", count: 120)
        XCTAssertEqual(safe(accented + ".bash_login"), "_bash_login")
        XCTAssertEqual(safe(accented + "-rf"), "file", "no extension to keep: nothing is left")
        XCTAssertEqual(safe(accented + "x.-rf"), "_-rf")
    }

    func testSeededRandomNamesAreAlwaysOneSafeComponent() {
        var generator = SeededGenerator(seed: 0x5AFE)
        let alphabet: [[UInt8]] = [
            Array("/".utf8), Array(".".utf8), Array("..".utf8), Array("-".utf8), Array("\\".utf8), [0], [0x0A],
            [0x7F], [0xC2, 0x85], [0xFF], [0xC3], [0xE2, 0x80, 0xAE], Array("a".utf8), Array("写".utf8),
            Array(" ".utf8), Array("(1)".utf8), Array("\u{301}".utf8),
        ]
        for round in 0..<5000 {
            var bytes: [UInt8] = []
            let parts = Int(generator.next() % 80)
            for _ in 0..<parts {
                if generator.chance(0.2) {
                    bytes.append(UInt8(truncatingIfNeeded: generator.next()))
                } else {
                    bytes += alphabet[Int(generator.next() % UInt64(alphabet.count))]
                }
            }
            if round % 50 == 0 { bytes += Array(repeating: 0x41, count: Int(generator.next() % 600)) }
            let name = ReceivedFileName(bytes)
            assertSafe(name.value, "round \(round) \(bytes)")
            for attempt in [1, 2, 99_999] {
                // " (99999)" and ".part" still fit Linux's 255 bytes.
                assertSafe(name.candidate(attempt), "round \(round) attempt \(attempt)", limit: 255 - 5)
            }
            XCTAssertLessThanOrEqual(name.candidate(99_999).utf8.count + ".part".utf8.count, 255)
        }
    }

    func testCandidatesNumberTheStem() {
        let name = ReceivedFileName(Array("photo.jpg".utf8))
        XCTAssertEqual((0...2).map(name.candidate), ["photo.jpg", "photo (1).jpg", "photo (2).jpg"])
        XCTAssertEqual(ReceivedFileName(Array("README".utf8)).candidate(1), "README (1)")
        XCTAssertEqual(ReceivedFileName(Array("a.tar.gz".utf8)).candidate(3), "a.tar (3).gz")
    }

    // MARK: Saving

    private func temporaryDirectory() throws -> String {
        var template = Array("/tmp/relay-names-XXXXXX".utf8CString)
        return String(cString: try XCTUnwrap(mkdtemp(&template)))
    }

    private func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    private let peer = PeerName(.central, BluetoothAddress("00:AA:01:01:00:01"))

    private func arrive(_ bytes: [UInt8], name: [UInt8], in directory: String) -> (String?, String?) {
        let message = Message(kind: .binary, bytes: bytes, name: name)
        let (report, problem) = MessageArrival(message, id: 1, from: peer, number: 1, saveDirectory: directory)
            .perform(files: IncomingFiles())
        return (report.saved, problem)
    }

    func testAFileIsSavedUnderItsNameAndNeverOverAnExistingOne() throws {
        let directory = try temporaryDirectory()
        defer { _ = try? FileManager.default.removeItem(atPath: directory) }
        let name = Array("räksmörgås 写真 (1).jpg".utf8)
        XCTAssertEqual(arrive([1], name: name, in: directory).0, directory + "/räksmörgås 写真 (1).jpg")
        XCTAssertEqual(arrive([2], name: name, in: directory).0, directory + "/räksmörgås 写真 (1) (1).jpg")
        // A folder, a dangling link and a stale .part with the next names are skipped, not followed.
        try FileManager.default.createDirectory(
            atPath: directory + "/räksmörgås 写真 (1) (2).jpg", withIntermediateDirectories: false)
        XCTAssertEqual(symlink("/tmp/relay-should-not-exist", directory + "/räksmörgås 写真 (1) (3).jpg"), 0)
        XCTAssertTrue(
            FileManager.default.createFile(atPath: directory + "/räksmörgås 写真 (1) (4).jpg.part", contents: Data([9])))
        XCTAssertEqual(arrive([3], name: name, in: directory).0, directory + "/räksmörgås 写真 (1) (5).jpg")
        XCTAssertEqual(contents(directory + "/räksmörgås 写真 (1).jpg"), [1])
        XCTAssertEqual(contents(directory + "/räksmörgås 写真 (1) (1).jpg"), [2])
        XCTAssertEqual(contents(directory + "/räksmörgås 写真 (1) (5).jpg"), [3])
        XCTAssertEqual(contents(directory + "/räksmörgås 写真 (1) (4).jpg.part"), [9], "someone else's .part untouched")
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/tmp/relay-should-not-exist"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".part") }
        XCTAssertEqual(leftovers, ["räksmörgås 写真 (1) (4).jpg.part"])
    }

    func testHostileNamesLandInsideTheFolder() throws {
        let directory = try temporaryDirectory()
        defer { _ = try? FileManager.default.removeItem(atPath: directory) }
        let hostile: [[UInt8]] = [
            Array("../../etc/passwd".utf8), Array("/tmp/x".utf8), Array("a/b".utf8), Array("..".utf8),
            Array(repeating: 0x41, count: 4096), [0], [0xFF, 0xFE, 0x2F], Array(".".utf8), Array("-".utf8),
        ]
        var saved: Set<String> = []
        for (index, name) in hostile.enumerated() {
            let (path, problem) = arrive([UInt8(index)], name: name, in: directory)
            XCTAssertNil(problem)
            let written = try XCTUnwrap(path, "\(name)")
            XCTAssertTrue(written.hasPrefix(directory + "/"))
            XCTAssertFalse(written.dropFirst(directory.count + 1).contains("/"), written)
            XCTAssertEqual(contents(written), [UInt8(index)])
            saved.insert(written)
        }
        XCTAssertEqual(saved.count, hostile.count)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory).count, hostile.count)
    }

    func testAMessageWithoutANameKeepsItsNumberedName() throws {
        let directory = try temporaryDirectory()
        defer { _ = try? FileManager.default.removeItem(atPath: directory) }
        let message = Message(binary: [1, 2, 3])
        let arrival = MessageArrival(message, id: 0, from: peer, number: 12, saveDirectory: directory)
        XCTAssertEqual(arrival.name.value, "message-0012-00_AA_01_01_00_01.bin")
        XCTAssertEqual(
            arrival.perform(files: IncomingFiles()).report.saved, directory + "/message-0012-00_AA_01_01_00_01.bin")
        XCTAssertEqual(
            arrival.perform(files: IncomingFiles()).report.saved, directory + "/message-0012-00_AA_01_01_00_01 (1).bin")
        XCTAssertEqual(arrival.report.name, nil)
    }
}
