import RelayCLI
import RelayProtocol

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A file being sent (`send-file`), read by range as the window advances instead of held: its
/// length, CRC-32C and SHA-256 come from one read through it when it is opened.
///
/// If the file changes after that, `read` returns what is there now (zero bytes past a cut end);
/// the receiver's CRC-32C check then refuses the message, so nothing is delivered wrong.
public final class FileContent: StoredBytes {
    public let count: Int
    public let checksum: UInt32
    public let sha256: SHA256.Digest
    private let fd: Int32

    /// Opens the regular file at `path` (at most `maximumBytes`) and reads it through once.
    public init(path: String, maximumBytes: Int, command: String? = nil) throws(CommandError) {
        let prefix = command.map { $0 + ": " } ?? ""
        let shown = ValueParser.quoted(path)
        let (fd, _) = try FileArgument.openRegular(path, maximumBytes: maximumBytes, command: command)
        var crc = CRC32C()
        var hasher = SHA256()
        var total = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if got == 0 { break }
            if got < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                close(fd)
                throw CommandError("\(prefix)cannot read \(shown): \(reason)")
            }
            total += got
            if total > maximumBytes {
                close(fd)
                throw CommandError("\(prefix)\(shown) is too large (more than \(maximumBytes) bytes)")
            }
            buffer.withUnsafeBytes { crc.update(UnsafeRawBufferPointer(rebasing: $0[0..<got])) }
            hasher.update(got == buffer.count ? buffer : Array(buffer[0..<got]))
        }
        self.fd = fd
        count = total
        checksum = crc.value
        sha256 = hasher.finalize()
    }

    deinit {
        close(fd)
    }

    public func read(_ range: Range<Int>) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: range.count)
        var done = 0
        while done < range.count {
            let got = bytes.withUnsafeMutableBytes {
                pread(fd, $0.baseAddress! + done, range.count - done, off_t(range.lowerBound + done))
            }
            if got > 0 {
                done += got
            } else if got < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        return bytes
    }
}
