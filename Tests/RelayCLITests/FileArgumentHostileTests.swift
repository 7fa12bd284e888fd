import Glibc
import XCTest

@testable import RelayCLI

/// Hostile `send-file` inputs found by the issue 8 scenarios (docs/reliability.md).
final class FileArgumentHostileTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        var template = Array("/tmp/relay-file-hostile-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CommandError("mkdtemp failed") }
        directory = String(cString: made)
    }

    override func tearDown() {
        for name in ["fifo", "small"] { unlink(directory + "/" + name) }
        rmdir(directory)
    }

    func testAFifoWithoutWriterIsRefusedNotWaitedFor() throws {
        XCTAssertEqual(mkfifo(directory + "/fifo", 0o600), 0)
        XCTAssertThrowsError(try FileArgument.read(directory + "/fifo", maximumBytes: 100, command: "send-file")) {
            XCTAssertEqual(($0 as? CommandError)?.message, "send-file: '\(directory)/fifo' is not a regular file")
        }
    }

    func testMemoryFollowsTheFileNotTheLimit() throws {
        let fd = open(directory + "/small", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        _ = [UInt8](repeating: 9, count: 10).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let bytes = try FileArgument.read(directory + "/small", maximumBytes: 256 << 20)
        XCTAssertEqual(bytes, [UInt8](repeating: 9, count: 10))
        // Before the fix every read reserved (and zeroed) maximumBytes + 1 bytes: 256 MiB here.
        XCTAssertLessThan(bytes.capacity, 1 << 20)
    }

    func testAFileWithoutASizeIsStillReadUpToTheLimit() throws {
        // /proc files report st_size 0 but have content.
        let bytes = try FileArgument.read("/proc/self/stat", maximumBytes: 1 << 20)
        XCTAssertFalse(bytes.isEmpty)
        XCTAssertThrowsError(try FileArgument.read("/proc/self/stat", maximumBytes: 3))
    }
}
