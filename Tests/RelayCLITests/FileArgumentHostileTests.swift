import Glibc
import XCTest

@testable import RelayCLI

/// Hostile `send-file` inputs found by the issue 8 scenarios (docs/reliability.md).
/// `send-file` on a FIFO (or any file whose `open` blocks) hung relay-central, and SIGTERM could not stop
/// it: `FileArgument.openRegular` (at the time `FileArgument.read`; Sources/Shared/RelayCLI/FileArgument.swift,
/// shared by both programs) opens with `O_NONBLOCK` and refuses anything but a regular file. The shared
/// `FileArgument.read` also reserved and zeroed 256 MiB for every file: a file is now read a range at a time
/// as it is sent (`FileContent`, Sources/Shared/RelayApp/Delivery/FileContent.swift, opened by
/// `FileArgument.openRegular`).
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
