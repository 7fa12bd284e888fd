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

    /// The `number`-th message received, `id` from `from`.
    public init(
        _ message: Message, id: Int, from: PeerName, number: Int, saveDirectory: String?, via: MessageVia = .relay
    ) {
        content = .bytes(message.bytes)
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
}

/// Numbers the complete messages a program receives (from 1, whoever sent them) and makes each
/// a `MessageArrival` for `--save-dir`.
public struct MessageArrivals: Equatable, Sendable {
    /// Messages received so far.
    public private(set) var count = 0
    public let saveDirectory: String?

    public init(saveDirectory: String?) {
        self.saveDirectory = saveDirectory
    }

    /// The next message, `id` from `from` (`via` the relay service, or a UART app's line).
    public mutating func next(_ message: Message, id: Int, from: PeerName, via: MessageVia = .relay) -> MessageArrival {
        count += 1
        return MessageArrival(message, id: id, from: from, number: count, saveDirectory: saveDirectory, via: via)
    }

    /// The next message: a file written as it came.
    public mutating func nextFile(
        _ key: IncomingFileKey, header: MessageHeader, sha256: SHA256.Digest, from: PeerName
    ) -> MessageArrival {
        count += 1
        return MessageArrival(file: key, header: header, sha256: sha256, from: from, saveDirectory: saveDirectory)
    }
}
