#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import Shared

/// Reading `send-file` inputs and writing `--save-dir` outputs, with one-line errors.
enum FileBytes {
    /// Largest file `send-file` reads (a relay message is shorter than 4 GiB; keep memory sane).
    static let maxFileBytes = 1 << 30

    /// The bytes of the file at `path`.
    static func read(_ path: String) throws(CommandError) -> [UInt8] {
        guard !path.isEmpty else { throw CommandError("send-file: missing PATH") }
        // O_NONBLOCK: opening a FIFO with no writer would otherwise block the whole program
        // (it is refused below as not a regular file).
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw CommandError("send-file: cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw CommandError("send-file: cannot stat \(path)") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw CommandError("send-file: \(path) is not a regular file") }
        guard Int(info.st_size) <= maxFileBytes else {
            throw CommandError("send-file: \(path) is \(info.st_size) bytes; at most \(maxFileBytes) are sent")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(info.st_size))
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes.append(contentsOf: buffer[0..<count])
            } else if count == 0 {
                return bytes
            } else if errno != EINTR {
                throw CommandError("send-file: reading \(path) failed: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Writes `bytes` to a new file at `path`; returns a one-line problem, or nil.
    static func write(_ bytes: [UInt8], to path: String) -> String? {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            return "cannot save the message to \(path): \(String(cString: strerror(errno))) (does --save-dir exist?)"
        }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return "saving the message to \(path) failed: \(String(cString: strerror(errno)))"
            }
        }
        return nil
    }
}
