import RelayBlueZ
import RelayCLI
import RelayProtocol

/// A complete message on its way to the user: written into `--save-dir` first when there is
/// one, then reported. Both programs hand every message they receive to their driver this way.
public struct MessageArrival: Equatable, Sendable {
    /// Where the message's bytes are.
    public enum Content: Equatable, Sendable {
        /// Held here (text and binary messages, and every version-1 message).
        case bytes([UInt8])
        /// A file already written to its part file as it came (`IncomingFiles`).
        case file(IncomingFileKey)
    }

    public let content: Content
    /// The report, without `saved` until the file is written.
    public let report: ReceivedMessageReport
    /// The folder it is saved in (`--save-dir`), or nil.
    public let directory: String?
    /// The name it is saved under when that is free: the sender's file name made safe
    /// (`ReceivedFileName`), or for a message without one `message-0001-00_AA_01_01_00_01.txt`
    /// (`.bin` for binary messages; `unknown` when the sender's address is not known).
    public let name: ReceivedFileName
    /// The version-2 transfer it came as (its sender waits for the save to hear `delivered`), or
    /// nil (a version-1 message, a UART app's line).
    public let transfer: TransferID?
    /// Why it is not saved although there is a `--save-dir` (its sender saved too many too fast).
    public internal(set) var refusal: String?

    /// The `number`-th message received, `id` from `from`.
    public init(
        _ message: Message, id: Int, from: PeerName, number: Int, saveDirectory: String?, via: MessageVia = .relay,
        transfer: TransferID? = nil
    ) {
        content = .bytes(message.bytes)
        self.transfer = transfer
        report = ReceivedMessageReport(from: from, id: id, message: message, via: via)
        directory = saveDirectory
        if message.name.isEmpty {
            name = .numbered(
                number, sender: from.address?.pathComponent ?? "unknown", suffix: message.kind == .text ? "txt" : "bin")
        } else {
            name = ReceivedFileName(message.name)
        }
    }

    /// A file that was written as it came: `header` and `sha256` from the receiver.
    public init(
        file key: IncomingFileKey, header: MessageHeader, sha256: SHA256.Digest, from: PeerName, saveDirectory: String?
    ) {
        content = .file(key)
        transfer = key.transfer
        report = ReceivedMessageReport(from: from, id: Int(key.transfer.value), header: header, sha256: sha256)
        directory = saveDirectory
        name = ReceivedFileName(header.name)
    }

    /// Writes the file (with a `--save-dir`) under its name or, when that is taken, the first
    /// free `name (n).ext`; never over an existing file (a file written as it came gets its
    /// name from `files`). Returns the report (with `saved` set when it was written) and, when
    /// it could not be, the one-line problem.
    public func perform(files: IncomingFiles) -> (report: ReceivedMessageReport, problem: String?) {
        var report = report
        guard let directory else { return (report, nil) }
        if let refusal { return (report, refusal) }
        switch content {
        case .bytes(let bytes):
            switch FileWriter.writeNew(bytes, in: directory, candidate: name.candidate) {
            case .success(let path): report.saved = path
            case .failure(let failure): return (report, IncomingFiles.problem(failure))
            }
        case .file(let key):
            let (path, problem) = files.commit(key)
            report.saved = path
            return (report, problem)
        }
        return (report, nil)
    }

    /// What the session is told once `perform` saved the message (`saved`) or could not: nil
    /// when no sender waits for it (nothing is saved, or a version-1 or UART message).
    public func receipt(saved: Bool) -> SaveReceipt? {
        guard directory != nil, let transfer else { return nil }
        return SaveReceipt(from: report.from, transfer: transfer, saved: saved)
    }
}

/// A version-2 message's save, done or failed: its sender's final acknowledgement waits for it.
public struct SaveReceipt: Equatable, Sendable {
    /// Who sent it.
    public let from: PeerName
    /// The transfer it came as.
    public let transfer: TransferID
    /// Whether it is on disk under its name.
    public let saved: Bool

    public init(from: PeerName, transfer: TransferID, saved: Bool) {
        self.from = from
        self.transfer = transfer
        self.saved = saved
    }
}

/// Numbers the complete messages a program receives (from 1, whoever sent them) and makes each
/// a `MessageArrival` for `--save-dir`.
public struct MessageArrivals: Equatable, Sendable {
    /// Messages received so far.
    public private(set) var count = 0
    public let saveDirectory: String?
    /// Each sender's saves: a burst of `savesPerMinute`, then one a second.
    private var saveBudgets: [BluetoothAddress?: SaveBudget] = [:]
    /// Everyone's saves: a burst of `savesPerMinuteFromAll`, then five a second.
    private var allSaves: SaveBudget?

    /// The most messages saved from one sender in a minute (a burst of this many, then one a
    /// second): a peer writing one-byte messages, or one UART write of 255 lines, cannot fill
    /// the folder with files.
    public static let savesPerMinute = 60
    /// The most messages saved from all senders together in a minute: a stranger whose address
    /// changes (a resolvable private address per connection) gets a new sender's budget each
    /// time, but not more of the folder.
    public static let savesPerMinuteFromAll = 300

    public init(saveDirectory: String?) {
        self.saveDirectory = saveDirectory
    }

    /// The next message, `id` from `from` (`via` the relay service, or a UART app's line), at
    /// `now` (seconds): saved unless its sender is over `savesPerMinute`.
    public mutating func next(
        _ message: Message, id: Int, from: PeerName, via: MessageVia = .relay, transfer: TransferID? = nil,
        at now: Double
    ) -> MessageArrival {
        count += 1
        var arrival = MessageArrival(
            message, id: id, from: from, number: count, saveDirectory: saveDirectory, via: via, transfer: transfer)
        if saveDirectory != nil, let refusal = saveRefusal(from: from, at: now) { arrival.refusal = refusal }
        return arrival
    }

    /// The next message: a file written as it came (`refused`: why it was not saved).
    public mutating func nextFile(
        _ key: IncomingFileKey, header: MessageHeader, sha256: SHA256.Digest, from: PeerName, refused: String? = nil
    ) -> MessageArrival {
        count += 1
        var arrival = MessageArrival(
            file: key, header: header, sha256: sha256, from: from, saveDirectory: saveDirectory)
        if let refused { arrival.refusal = refused }
        return arrival
    }

    /// Why `from` may not have one more message saved at `now`; nil when it may (taken from its
    /// budget and everyone's then).
    public mutating func saveRefusal(from: PeerName, at now: Double) -> String? {
        let limit = Double(Self.savesPerMinute)
        var budget = (saveBudgets[from.address] ?? SaveBudget(tokens: limit, at: now)).refilled(limit, at: now)
        var all = (allSaves ?? SaveBudget(tokens: Double(Self.savesPerMinuteFromAll), at: now))
            .refilled(Double(Self.savesPerMinuteFromAll), at: now)
        // Full budgets are forgotten: senders that come and go leave nothing behind.
        saveBudgets = saveBudgets.filter { $0.value.refilled(limit, at: now).tokens < limit }
        defer {
            saveBudgets[from.address] = budget
            allSaves = all
        }
        guard budget.tokens >= 1 else { return Self.refusal(from) }
        guard all.tokens >= 1 else {
            return "not saved: more than \(Self.savesPerMinuteFromAll) messages a minute came from all senders"
        }
        budget.tokens -= 1
        all.tokens -= 1
        return nil
    }

    static func refusal(_ from: PeerName) -> String {
        "not saved: \(from) sent more than \(savesPerMinute) messages a minute"
    }
}

/// What a sender may still have saved: tokens, refilled with time.
private struct SaveBudget: Equatable, Sendable {
    var tokens: Double
    var at: Double

    /// The budget at `now`, refilled at `limit` a minute up to `limit`.
    func refilled(_ limit: Double, at now: Double) -> SaveBudget {
        SaveBudget(tokens: min(limit, tokens + max(0, now - at) * limit / 60), at: max(at, now))
    }
}
