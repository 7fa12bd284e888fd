#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reads a file named on the command line (`send-file PATH`) with one clear error for
/// each way it can go wrong: missing, a directory, not a regular file, unreadable, or
/// larger than allowed. Never reads more than `maximumBytes` (+1 to detect growth).
public enum FileArgument {
    /// `path` with a leading `~/` replaced by `$HOME/`.
    public static func expand(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/"), let home = getenv("HOME") else { return path }
        return String(cString: home) + path.dropFirst()
    }

    /// The whole content of the regular file at `path`, at most `maximumBytes` long.
    public static func read(_ path: String, maximumBytes: Int, command: String? = nil) throws(CommandError) -> [UInt8] {
        let prefix = command.map { $0 + ": " } ?? ""
        let shown = ArgumentParser.quoted(path)
        guard !path.isEmpty else { throw CommandError("\(prefix)empty file name") }
        let resolved = expand(path)
        let fd = open(resolved, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            switch code {
            case ENOENT: throw CommandError("\(prefix)no such file: \(shown)")
            case EACCES: throw CommandError("\(prefix)permission denied: \(shown) (check the file's mode and owner)")
            default: throw CommandError("\(prefix)cannot open \(shown): \(String(cString: strerror(code)))")
            }
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw CommandError("\(prefix)cannot read \(shown): \(String(cString: strerror(errno)))")
        }
        let type = info.st_mode & S_IFMT
        if type == S_IFDIR { throw CommandError("\(prefix)\(shown) is a directory, not a file") }
        guard type == S_IFREG else { throw CommandError("\(prefix)\(shown) is not a regular file") }
        if Int(info.st_size) > maximumBytes {
            throw CommandError("\(prefix)\(shown) is too large (\(info.st_size) bytes, at most \(maximumBytes))")
        }
        // Memory follows the file, not the limit: the size fstat(2) reports, growing in 64 KiB
        // steps for files that report none (/proc) or grow while read.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(info.st_size) + 1)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while bytes.count <= maximumBytes {
            let wanted = min(buffer.count, maximumBytes + 1 - bytes.count)
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, wanted) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw CommandError("\(prefix)cannot read \(shown): \(String(cString: strerror(errno)))")
            }
            bytes.append(contentsOf: buffer[0..<count])
        }
        if bytes.count > maximumBytes {
            throw CommandError("\(prefix)\(shown) is too large (more than \(maximumBytes) bytes)")
        }
        return bytes
    }
}
