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

    /// The free space a received file never takes: a file that would leave less on its disk is
    /// not written on (its part file is removed).
    public static let minimumFreeBytes = 64 << 20

    /// The disk's free space is asked again each time a file grows by this much.
    static let freeSpaceCheckInterval = 1 << 20

    /// Bytes an unprivileged writer may still use on the file system of `fd`; nil when unknown.
    static func freeBytes(_ fd: Int32) -> Int? {
        var info = statvfs()
        guard fstatvfs(fd, &info) == 0 else { return nil }
        return Int(info.f_bavail) &* Int(info.f_frsize)
    }

    /// Writes `bytes` as a new file in `directory` under the first of `candidate(0)`,
    /// `candidate(1)`, ... that names nothing there, and returns its path (see `PartFile`).
    public static func writeNew(
        _ bytes: [UInt8], in directory: String, minimumFree: Int = minimumFreeBytes,
        candidate: @escaping (Int) -> String
    ) -> Result<String, Failure> {
        let file: PartFile
        switch PartFile.create(in: directory, minimumFree: minimumFree, candidate: candidate) {
        case .success(let created): file = created
        case .failure(let failure): return .failure(failure)
        }
        if let failure = file.append(bytes) { return .failure(failure) }
        return file.commit()
    }

    /// Whether anything (a file, a folder, a dangling link) has `path`.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    static func writeAll(_ bytes: [UInt8], to fd: Int32) -> String? {
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

/// A file being received: written to `NAME.part` as its bytes come, then given its name.
///
/// Nothing existing is ever replaced or followed: `NAME.part` is created exclusively (`O_EXCL`,
/// `O_NOFOLLOW`) for the first candidate whose `NAME` and `NAME.part` are both free. `commit`
/// links it to `NAME` (which fails if `NAME` appeared meanwhile: the next free name is taken)
/// and removes the `.part`; on a file system without hard links it renames it once `NAME` is
/// free. A part file that is neither committed nor discarded is removed when it is released.
public final class PartFile {
    /// The `.part` path being written.
    public let partPath: String
    private let folder: String
    private let candidate: (Int) -> String
    private var attempt: Int
    private var fd: Int32
    /// Bytes written so far.
    public private(set) var length = 0
    private var done = false
    /// The free space this file leaves on its disk, at least.
    private let minimumFree: Int

    private init(
        fd: Int32, folder: String, attempt: Int, minimumFree: Int, candidate: @escaping (Int) -> String
    ) {
        self.fd = fd
        self.minimumFree = minimumFree
        self.folder = folder
        self.attempt = attempt
        self.candidate = candidate
        partPath = folder + candidate(attempt) + ".part"
    }

    deinit {
        if !done { discard() }
    }

    /// A new, empty `NAME.part` in `directory` for the first free `candidate(n)`; it is written
    /// on only while its disk keeps `minimumFree` bytes free.
    public static func create(
        in directory: String, minimumFree: Int = FileWriter.minimumFreeBytes, candidate: @escaping (Int) -> String
    ) -> Result<
        PartFile, FileWriter.Failure
    > {
        let folder = directory.hasSuffix("/") ? directory : directory + "/"
        for attempt in 0..<FileWriter.maximumAttempts {
            let path = folder + candidate(attempt)
            if FileWriter.exists(path) { continue }
            let fd = open(path + ".part", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if fd < 0 {
                if errno == EEXIST { continue }
                return .failure(FileWriter.Failure(path: path, reason: String(cString: strerror(errno))))
            }
            return .success(
                PartFile(fd: fd, folder: folder, attempt: attempt, minimumFree: minimumFree, candidate: candidate))
        }
        return .failure(
            FileWriter.Failure(
                path: folder + candidate(0), reason: "\(FileWriter.maximumAttempts) names are taken"))
    }

    /// Appends `bytes`; on failure the part file is removed and the failure returned.
    public func append(_ bytes: [UInt8]) -> FileWriter.Failure? {
        guard !done else { return FileWriter.Failure(path: partPath, reason: "already closed") }
        let interval = FileWriter.freeSpaceCheckInterval
        if length == 0 || (length + bytes.count) / interval != length / interval,
            let free = FileWriter.freeBytes(fd), free - bytes.count < minimumFree
        {
            discard()
            return FileWriter.Failure(
                path: partPath,
                reason: "the disk would keep less than \(minimumFree >> 20) MiB free (\(free >> 20) MiB left)")
        }
        if let problem = FileWriter.writeAll(bytes, to: fd) {
            discard()
            return FileWriter.Failure(path: partPath, reason: problem)
        }
        length += bytes.count
        return nil
    }

    /// Gives the file its name (the first still free) and returns its path.
    public func commit() -> Result<String, FileWriter.Failure> {
        guard !done else { return .failure(FileWriter.Failure(path: partPath, reason: "already closed")) }
        done = true
        close(fd)
        fd = -1
        defer { unlink(partPath) }
        while attempt < FileWriter.maximumAttempts {
            let path = folder + candidate(attempt)
            attempt += 1
            if link(partPath, path) == 0 { return .success(path) }
            let linkError = errno
            if linkError == EEXIST { continue }
            if linkError == EPERM || linkError == EOPNOTSUPP || linkError == EXDEV {
                if FileWriter.exists(path) { continue }
                if rename(partPath, path) == 0 { return .success(path) }
            }
            return .failure(FileWriter.Failure(path: path, reason: String(cString: strerror(linkError))))
        }
        return .failure(
            FileWriter.Failure(
                path: folder + candidate(0), reason: "\(FileWriter.maximumAttempts) names are taken"))
    }

    /// Closes and removes the part file (a dropped or failed transfer).
    public func discard() {
        guard !done else { return }
        done = true
        close(fd)
        fd = -1
        unlink(partPath)
    }
}
