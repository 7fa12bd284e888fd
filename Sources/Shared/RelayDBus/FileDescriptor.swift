import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An owned Unix file descriptor carried in a D-Bus message (type `h`).
///
/// The descriptor is closed when the object is deinitialised, unless it was taken with
/// `take()`. Descriptors received from the bus are duplicates owned by this object;
/// sending one duplicates it again, so the sender keeps its own copy.
public final class FileDescriptor: Sendable, CustomStringConvertible {
    private let storage: Mutex<Int32>

    /// Takes ownership of `fd`.
    public init(owning fd: Int32) {
        storage = Mutex(fd)
    }

    /// Duplicates `fd` (close-on-exec); the caller keeps ownership of `fd`.
    public convenience init(duplicating fd: Int32) throws(DBusError) {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw .invalidValue("cannot duplicate fd \(fd): errno \(errno)") }
        self.init(owning: copy)
    }

    deinit { close() }

    /// The descriptor, or `nil` once taken or closed. Still owned by this object.
    public var rawValue: Int32? {
        storage.withLock { $0 >= 0 ? $0 : nil }
    }

    /// Hands the descriptor over to the caller, who must close it; later calls return `nil`.
    public func take() -> Int32? {
        storage.withLock { fd in
            defer { fd = -1 }
            return fd >= 0 ? fd : nil
        }
    }

    /// Closes the descriptor now (harmless if already closed or taken).
    public func close() {
        if let fd = take() { _ = Glibc.close(fd) }
    }

    public var description: String { rawValue.map { "fd(\($0))" } ?? "fd(closed)" }
}
