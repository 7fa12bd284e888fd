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
        unlink(directory + "/fifo")
        rmdir(directory)
    }

    func testAFifoWithoutWriterIsRefusedNotWaitedFor() throws {
        XCTAssertEqual(mkfifo(directory + "/fifo", 0o600), 0)
        XCTAssertThrowsError(try FileArgument.openRegular(directory + "/fifo", maximumBytes: 100, command: "send-file"))
        {
            XCTAssertEqual(($0 as? CommandError)?.message, "send-file: '\(directory)/fifo' is not a regular file")
        }
    }
}
