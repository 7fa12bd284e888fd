#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Writes whole files, with a one-line reason when it cannot.
public enum FileWriter {
    /// Creates (or truncates) the file at `path` with `bytes`; returns why it failed, or nil.
    public static func write(_ bytes: [UInt8], to path: String) -> String? {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return String(cString: strerror(errno))
            }
        }
        return nil
    }
}
