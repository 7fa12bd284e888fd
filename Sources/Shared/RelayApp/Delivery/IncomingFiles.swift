import RelayCLI
import RelayEndpoint
import RelayProtocol

/// One file on its way in: its sender and the sender's transfer number.
public struct IncomingFileKey: Hashable, Sendable {
    /// Who sends it (its address; nil when not known).
    public let sender: BluetoothAddress?
    public let role: PeerName.Role
    public let transfer: TransferID

    public init(from sender: PeerName, transfer: TransferID) {
        self.sender = sender.address
        role = sender.role
        self.transfer = transfer
    }
}

/// What a program does on disk for a file on its way in (with `--save-dir`): the sessions
/// decide these steps, the driver hands them to its `IncomingFiles`.
public enum IncomingFileStep: Equatable, Sendable {
    /// Start `NAME.part` in `directory` for the first free form of `name`.
    case open(IncomingFileKey, directory: String, name: ReceivedFileName)
    /// Append the file's next bytes.
    case append(IncomingFileKey, [UInt8])
    /// The transfer was dropped or refused: remove the part file.
    case discard(IncomingFileKey)
}

/// The part files of the files being received (`--save-dir`), written as their bytes arrive,
/// named when their checksum matched, removed when their transfer is dropped. Owned by a
/// program's driver; both programs use it.
public final class IncomingFiles {
    private var files: [IncomingFileKey: PartFile] = [:]
    /// Files whose part file could not be written (their problem was reported once).
    private var broken: [IncomingFileKey: FileWriter.Failure] = [:]

    public init() {}

    /// Part files open now.
    public var openCount: Int { files.count }

    /// Performs `step`; returns the one-line problem when the file cannot be written (reported
    /// once per file: its later bytes are skipped).
    public func perform(_ step: IncomingFileStep) -> String? {
        switch step {
        case .open(let key, let directory, let name):
            files.removeValue(forKey: key)?.discard()
            broken[key] = nil
            switch PartFile.create(in: directory, candidate: name.candidate) {
            case .success(let file): files[key] = file
            case .failure(let failure):
                broken[key] = failure
                return Self.problem(failure)
            }
        case .append(let key, let bytes):
            guard let file = files[key] else { return nil }
            if let failure = file.append(bytes) {
                files[key] = nil
                broken[key] = failure
                return Self.problem(failure)
            }
        case .discard(let key):
            files.removeValue(forKey: key)?.discard()
            broken[key] = nil
        }
        return nil
    }

    /// The file `key` is complete and checked: gives it its name. Returns its path, or the
    /// one-line problem (nil, nil when nothing was being saved).
    public func commit(_ key: IncomingFileKey) -> (path: String?, problem: String?) {
        if let failure = broken.removeValue(forKey: key) { return (nil, Self.problem(failure)) }
        guard let file = files.removeValue(forKey: key) else { return (nil, nil) }
        switch file.commit() {
        case .success(let path): return (path, nil)
        case .failure(let failure): return (nil, Self.problem(failure))
        }
    }

    /// Removes every part file (the program stops).
    public func discardAll() {
        for file in files.values { file.discard() }
        files.removeAll()
        broken.removeAll()
    }

    static func problem(_ failure: FileWriter.Failure) -> String {
        "cannot save the message as \(failure.path): \(failure.reason) (check --save-dir)"
    }
}
