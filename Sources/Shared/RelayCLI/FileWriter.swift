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

    /// The free inodes a received file never takes: with fewer left on its file system, no file
    /// is created (a flood of small files runs out of inodes long before bytes on some disks).
    public static let minimumFreeInodes = 4096

    /// Inodes an unprivileged writer may still use on the file system of `fd`; nil when unknown
    /// or not counted (btrfs and others report no total).
    static func freeInodes(_ fd: Int32) -> Int? {
        var info = statvfs()
        guard fstatvfs(fd, &info) == 0, info.f_files > 0 else { return nil }
        return Int(info.f_favail)
    }

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

    /// Whether anything (a file, a folder, a dangling link) has `name` in the folder `folderFD`.
    static func exists(_ name: String, in folderFD: Int32) -> Bool {
        var info = stat()
        return fstatat(folderFD, name, &info, AT_SYMLINK_NOFOLLOW) == 0
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
/// Nothing existing is ever replaced or followed: the save folder is opened once per file and
/// every step after that is relative to that descriptor (a folder renamed or swapped for a link
/// meanwhile changes nothing), `NAME.part` is created exclusively (`O_EXCL`, `O_NOFOLLOW`) for the
/// first candidate whose `NAME` and `NAME.part` are both free, and `commit` links it to `NAME`
/// (which fails if `NAME` appeared meanwhile: the next free name is taken) and removes the
/// `.part`. On a file system without hard links, `NAME` is first created empty and exclusively,
/// which reserves it, and the `.part` is renamed over that reservation alone. A part file that is
/// neither committed nor discarded is removed when it is released.
public final class PartFile {
    /// How a finished part file is given its name.
    enum Naming: Equatable {
        /// `linkat` to the name (fails if it exists), then the `.part` is removed.
        case hardLink
        /// The name is created empty with `O_EXCL`, then the `.part` renamed over it.
        case reserveThenRename
    }

    /// The `.part` path being written.
    public let partPath: String
    private let folder: String
    private let candidate: (Int) -> String
    private var attempt: Int
    private var fd: Int32
    /// The save folder, opened when the file was created.
    private var folderFD: Int32
    /// The `.part` name within the folder.
    private let partName: String
    /// Bytes written so far.
    public private(set) var length = 0
    private var done = false
    /// The `.part` became the named file (nothing left to remove).
    private var partRenamed = false
    /// The free space this file leaves on its disk, at least.
    private let minimumFree: Int
    /// How `commit` starts naming (tests choose the fallback; it is also taken when the file
    /// system refuses hard links).
    var naming: Naming = .hardLink

    private init(
        fd: Int32, folderFD: Int32, folder: String, attempt: Int, minimumFree: Int,
        candidate: @escaping (Int) -> String
    ) {
        self.fd = fd
        self.folderFD = folderFD
        self.minimumFree = minimumFree
        self.folder = folder
        self.attempt = attempt
        self.candidate = candidate
        partName = candidate(attempt) + ".part"
        partPath = folder + partName
    }

    deinit {
        if !done { discard() }
    }

    /// A new, empty `NAME.part` in `directory` for the first free `candidate(n)`, unless its file
    /// system keeps fewer than `minimumInodes` inodes free; it is written on only while its disk
    /// keeps `minimumFree` bytes free.
    public static func create(
        in directory: String, minimumFree: Int = FileWriter.minimumFreeBytes,
        minimumInodes: Int = FileWriter.minimumFreeInodes, candidate: @escaping (Int) -> String
    ) -> Result<
        PartFile, FileWriter.Failure
    > {
        let folder = directory.hasSuffix("/") ? directory : directory + "/"
        let folderFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folderFD >= 0 else {
            return .failure(FileWriter.Failure(path: folder + candidate(0), reason: String(cString: strerror(errno))))
        }
        if let inodes = FileWriter.freeInodes(folderFD), inodes < minimumInodes {
            close(folderFD)
            return .failure(
                FileWriter.Failure(
                    path: folder + candidate(0),
                    reason: "its file system would keep fewer than \(minimumInodes) free inodes (\(inodes) left)"))
        }
        for attempt in 0..<FileWriter.maximumAttempts {
            let name = candidate(attempt)
            if FileWriter.exists(name, in: folderFD) { continue }
            let fd = openat(folderFD, name + ".part", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if fd < 0 {
                if errno == EEXIST { continue }
                let reason = String(cString: strerror(errno))
                close(folderFD)
                return .failure(FileWriter.Failure(path: folder + name, reason: reason))
            }
            return .success(
                PartFile(
                    fd: fd, folderFD: folderFD, folder: folder, attempt: attempt, minimumFree: minimumFree,
                    candidate: candidate))
        }
        close(folderFD)
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
        defer { release() }
        while attempt < FileWriter.maximumAttempts {
            let name = candidate(attempt)
            attempt += 1
            switch naming {
            case .hardLink:
                if linkat(folderFD, partName, folderFD, name, 0) == 0 { return .success(folder + name) }
                let linkError = errno
                if linkError == EEXIST { continue }
                guard linkError == EPERM || linkError == EOPNOTSUPP || linkError == EXDEV else {
                    return .failure(
                        FileWriter.Failure(path: folder + name, reason: String(cString: strerror(linkError))))
                }
                // No hard links here: this name and the next are reserved instead.
                naming = .reserveThenRename
                attempt -= 1
            case .reserveThenRename:
                let reservation = openat(folderFD, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
                if reservation < 0 {
                    if errno == EEXIST { continue }
                    return .failure(FileWriter.Failure(path: folder + name, reason: String(cString: strerror(errno))))
                }
                close(reservation)
                // The name is ours alone now: the rename replaces only the empty reservation.
                if renameat(folderFD, partName, folderFD, name) == 0 {
                    partRenamed = true
                    return .success(folder + name)
                }
                let renameError = errno
                unlinkat(folderFD, name, 0)
                return .failure(FileWriter.Failure(path: folder + name, reason: String(cString: strerror(renameError))))
            }
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
        release()
    }

    /// Removes the `.part` (gone already after a rename) and closes the folder.
    private func release() {
        guard folderFD >= 0 else { return }
        if !partRenamed { unlinkat(folderFD, partName, 0) }
        close(folderFD)
        folderFD = -1
    }
}
