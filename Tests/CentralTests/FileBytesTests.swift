import Glibc
import Shared
import XCTest
@testable import relay_central

/// `send-file` inputs of relay-central that must fail with one line instead of hanging
/// (found by tests/hostile-input.sh, issue 8).
final class FileBytesTests: XCTestCase {
    func testAFifoWithoutWriterIsRefusedNotWaitedFor() throws {
        var template = Array("/tmp/relay-filebytes-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CommandError("mkdtemp failed") }
        let directory = String(cString: made)
        defer { unlink(directory + "/fifo"); rmdir(directory) }
        XCTAssertEqual(mkfifo(directory + "/fifo", 0o600), 0)
        XCTAssertThrowsError(try FileBytes.read(directory + "/fifo")) {
            XCTAssertEqual(($0 as? CommandError)?.message, "send-file: \(directory)/fifo is not a regular file")
        }
    }

    func testMissingFileAndDirectoryEachSayWhy() {
        XCTAssertThrowsError(try FileBytes.read("/nonexistent/relay")) {
            XCTAssertEqual(($0 as? CommandError)?.message, "send-file: cannot open /nonexistent/relay: No such file or directory")
        }
        XCTAssertThrowsError(try FileBytes.read("/tmp")) {
            XCTAssertEqual(($0 as? CommandError)?.message, "send-file: /tmp is not a regular file")
        }
    }
}
