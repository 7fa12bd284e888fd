import Glibc
import RelayApp
import RelayCLI
import RelayProtocol
import XCTest

/// `send-file`'s content: read through once for its checksums, then by range as it is sent.
final class FileContentTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        var template = Array("/tmp/relay-file-content-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CommandError("mkdtemp failed") }
        directory = String(cString: made)
    }

    override func tearDown() {
        unlink(directory + "/data")
        rmdir(directory)
    }

    private func write(_ bytes: [UInt8]) {
        let fd = open(directory + "/data", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    func testLengthChecksumsAndRangesMatchTheBytes() throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<200_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        write(bytes)
        let file = try FileContent(path: directory + "/data", maximumBytes: 1 << 20)
        XCTAssertEqual(file.count, bytes.count)
        XCTAssertEqual(file.checksum, CRC32C.checksum(bytes))
        XCTAssertEqual(file.sha256, SHA256.hash(bytes))
        for range in [0..<1, 0..<65_536, 65_535..<65_537, 199_000..<200_000, 12_345..<12_345] {
            XCTAssertEqual(file.read(range), Array(bytes[range]), "\(range)")
        }
        let message = Message(kind: .binary, stored: file, name: Array("data".utf8))
        XCTAssertEqual(message.length, bytes.count)
        XCTAssertEqual(message.content(100..<200), Array(bytes[100..<200]))
        XCTAssertEqual(message.held.bytes, bytes, "version 1 reads it whole")
        XCTAssertEqual(MessageHeader(of: message).checksum, CRC32C.checksum(bytes))
    }

    func testAFileCutWhileSentReadsAsZerosSoTheChecksumRefusesIt() throws {
        write([UInt8](repeating: 5, count: 1000))
        let file = try FileContent(path: directory + "/data", maximumBytes: 1000)
        XCTAssertEqual(truncate(directory + "/data", 10), 0)
        let read = file.read(0..<20)
        XCTAssertEqual(read, [UInt8](repeating: 5, count: 10) + [UInt8](repeating: 0, count: 10))
        XCTAssertNotEqual(CRC32C.checksum(file.read(0..<1000)), file.checksum)
    }

    func testAFileGrowingPastTheLimitWhileReadIsRefused() throws {
        // /proc files report st_size 0 but have content.
        let file = try FileContent(path: "/proc/self/stat", maximumBytes: 1 << 20)
        XCTAssertGreaterThan(file.count, 0)
        XCTAssertThrowsError(try FileContent(path: "/proc/self/stat", maximumBytes: 3, command: "send-file")) {
            XCTAssertEqual(
                ($0 as? CommandError)?.message, "send-file: '/proc/self/stat' is too large (more than 3 bytes)")
        }
    }

    func testProblemsAreTheCommandLineOnes() {
        XCTAssertThrowsError(try FileContent(path: directory, maximumBytes: 10, command: "send-file")) {
            XCTAssertEqual(($0 as? CommandError)?.message, "send-file: '\(directory)' is a directory, not a file")
        }
    }
}
