#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Writes received files as new files, with a one-line reason when it cannot.
public enum FileWriter {
    /// Why a file could not be written: the path tried and the system's words.
    public struct Failure: Error, Equatable {
        public let path: String
        public let reason: String
    }

    /// How many names `writeNew` tries before it gives up.
    public static let maximumAttempts = 10_000

    /// Writes `bytes` as a new file in `directory` under the first of `candidate(0)`,
    /// `candidate(1)`, ... that names nothing there, and returns its path. Nothing existing is
    /// ever replaced or followed: the bytes go to `NAME.part` (created exclusively), which is
    /// then linked to `NAME` (which fails if `NAME` appeared meanwhile: the next name is tried)
    /// and removed; on a file system without hard links it is renamed once `NAME` is free.
    public static func writeNew(
        _ bytes: [UInt8], in directory: String, candidate: (Int) -> String
    ) -> Result<String, Failure> {
        let folder = directory.hasSuffix("/") ? directory : directory + "/"
        for attempt in 0..<maximumAttempts {
            let path = folder + candidate(attempt)
            let part = path + ".part"
            if exists(path) { continue }
            let fd = open(part, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if fd < 0 {
                if errno == EEXIST { continue }
                return .failure(Failure(path: path, reason: String(cString: strerror(errno))))
            }
            let problem = writeAll(bytes, to: fd)
            close(fd)
            if let problem {
                unlink(part)
                return .failure(Failure(path: path, reason: problem))
            }
            if link(part, path) == 0 {
                unlink(part)
                return .success(path)
            }
            let linkError = errno
            if linkError == EEXIST {
                unlink(part)
                continue
            }
            if linkError == EPERM || linkError == EOPNOTSUPP || linkError == EXDEV, !exists(path),
                rename(part, path) == 0
            {
                return .success(path)
            }
            unlink(part)
            return .failure(Failure(path: path, reason: String(cString: strerror(linkError))))
        }
        return .failure(Failure(path: folder + candidate(0), reason: "\(maximumAttempts) names are taken"))
    }

    /// Whether anything (a file, a folder, a dangling link) has `path`.
    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    private static func writeAll(_ bytes: [UInt8], to fd: Int32) -> String? {
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
