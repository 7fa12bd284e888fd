import RelayBlueZ
import RelayCLI
import RelayProtocol

/// A complete message on its way to the user: written into `--save-dir` first when there is
/// one, then reported. Both programs hand every message they receive to their driver this way.
public struct MessageArrival: Equatable, Sendable {
    public let bytes: [UInt8]
    /// The report, without `saved` until the file is written.
    public let report: ReceivedMessageReport
    /// Where `--save-dir` puts it: `DIR/message-0001-00_AA_01_01_00_01.txt` (`.bin` for binary
    /// messages; `unknown` when the sender's address is not known); nil without `--save-dir`.
    public let path: String?

    /// The `number`-th message received, `id` from `from`.
    public init(_ message: Message, id: Int, from: PeerName, number: Int, saveDirectory: String?) {
        bytes = message.bytes
        report = ReceivedMessageReport(from: from, id: id, message: message)
        path = saveDirectory.map { directory in
            let digits = String(number)
            let padded = String(repeating: "0", count: max(0, 4 - digits.count)) + digits
            let sender = from.address?.pathComponent ?? "unknown"
            let suffix = message.kind == .text ? "txt" : "bin"
            return (directory.hasSuffix("/") ? directory : directory + "/") + "message-\(padded)-\(sender).\(suffix)"
        }
    }

    /// Writes the file (when there is a path); returns the report (with `saved` set when it was
    /// written) and, when it could not be, the one-line problem.
    public func perform() -> (report: ReceivedMessageReport, problem: String?) {
        var report = report
        guard let path else { return (report, nil) }
        if let problem = FileWriter.write(bytes, to: path) {
            return (report, "cannot save the message to \(path): \(problem) (check --save-dir)")
        }
        report.saved = path
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

    /// The next message, `id` from `from`.
    public mutating func next(_ message: Message, id: Int, from: PeerName) -> MessageArrival {
        count += 1
        return MessageArrival(message, id: id, from: from, number: count, saveDirectory: saveDirectory)
    }
}
