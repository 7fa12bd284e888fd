import Glibc
import XCTest

@testable import RelayCLI

final class FileArgumentTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        var template = Array("/tmp/relay-file-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CommandError("mkdtemp failed") }
        directory = String(cString: made)
    }

    override func tearDown() {
        for name in ["small", "big", "secret"] { unlink(directory + "/" + name) }
        rmdir(directory + "/sub")
        rmdir(directory)
    }

    private func write(_ name: String, _ bytes: [UInt8], mode: mode_t = 0o644) {
        let fd = open(directory + "/" + name, O_WRONLY | O_CREAT | O_TRUNC, mode)
        XCTAssertGreaterThanOrEqual(fd, 0)
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    private func failure(_ path: String, maximum: Int = 100) -> String? {
        do {
            let (fd, _) = try FileArgument.openRegular(path, maximumBytes: maximum, command: "send-file")
            close(fd)
            return nil
        } catch {
            return error.message
        }
    }

    func testOpensARegularFileAndSaysItsSize() throws {
        write("small", [0, 1, 2, 255])
        let (fd, size) = try FileArgument.openRegular(directory + "/small", maximumBytes: 4)
        defer { close(fd) }
        XCTAssertEqual(size, 4)
        var bytes = [UInt8](repeating: 0, count: 8)
        XCTAssertEqual(bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, 8) }, 4)
        XCTAssertEqual(Array(bytes.prefix(4)), [0, 1, 2, 255])
    }

    func testEachProblemHasItsOwnMessage() {
        XCTAssertEqual(failure(directory + "/missing"), "send-file: no such file: '\(directory)/missing'")
        XCTAssertEqual(failure(directory), "send-file: '\(directory)' is a directory, not a file")
        XCTAssertEqual(failure("/dev/null"), "send-file: '/dev/null' is not a regular file")
        XCTAssertEqual(failure(""), "send-file: empty file name")
        write("big", [UInt8](repeating: 7, count: 101))
        XCTAssertEqual(
            failure(directory + "/big"), "send-file: '\(directory)/big' is too large (101 bytes, at most 100)")
    }

    func testUnreadableFile() throws {
        write("secret", [1], mode: 0o000)
        if geteuid() == 0 {
            // root reads anything; the message path is still exercised by a non-root run.
            XCTAssertNil(failure(directory + "/secret"))
        } else {
            XCTAssertEqual(
                failure(directory + "/secret"),
                "send-file: permission denied: '\(directory)/secret' (check the file's mode and owner)")
        }
    }

    func testTildeExpandsToHome() {
        let home = String(cString: getenv("HOME"))
        XCTAssertEqual(FileArgument.expand("~/x"), home + "/x")
        XCTAssertEqual(FileArgument.expand("a/~/x"), "a/~/x")
    }
}
