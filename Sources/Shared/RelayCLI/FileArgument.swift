#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Opens a file named on the command line (`send-file PATH`) with one clear error for each way
/// it can go wrong: missing, a directory, not a regular file, unreadable, or larger than
/// allowed (`FileContent` then reads it as it is sent).
public enum FileArgument {
    /// `path` with a leading `~/` replaced by `$HOME/`.
    public static func expand(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/"), let home = getenv("HOME") else { return path }
        return String(cString: home) + path.dropFirst()
    }

    /// Opens the regular file at `path` for reading, with one clear error for each way it can
    /// go wrong (missing, a directory, not a regular file, unreadable, larger than
    /// `maximumBytes`). Returns the descriptor (the caller closes it) and the size it reports.
    public static func openRegular(
        _ path: String, maximumBytes: Int, command: String? = nil
    ) throws(CommandError) -> (
        fd: Int32, size: Int
    ) {
        let prefix = command.map { $0 + ": " } ?? ""
        let shown = ValueParser.quoted(path)
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
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw CommandError("\(prefix)cannot read \(shown): \(String(cString: strerror(code)))")
        }
        let type = info.st_mode & S_IFMT
        guard type == S_IFREG else {
            close(fd)
            if type == S_IFDIR { throw CommandError("\(prefix)\(shown) is a directory, not a file") }
            throw CommandError("\(prefix)\(shown) is not a regular file")
        }
        if Int(info.st_size) > maximumBytes {
            close(fd)
            throw CommandError("\(prefix)\(shown) is too large (\(info.st_size) bytes, at most \(maximumBytes))")
        }
        return (fd, Int(info.st_size))
    }
}
