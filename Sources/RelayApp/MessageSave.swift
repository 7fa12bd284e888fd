import RelayBlueZ
import RelayCLI
import RelayProtocol

/// A received message to write into `--save-dir` before it is reported.
public struct SaveRequest: Equatable, Sendable {
    public let bytes: [UInt8]
    public let path: String
    /// The report, without `saved` until the file is written.
    public let report: ReceivedMessageReport

    /// The request for the `number`-th message from `report.from`, under `directory`:
    /// `DIR/message-0001-00_AA_01_01_00_01.txt` (`.bin` for binary messages; `unknown` when the
    /// sender's address is not known).
    public init(_ message: Message, report: ReceivedMessageReport, number: Int, directory: String) {
        let digits = String(number)
        let padded = String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        let sender = report.from.address?.pathComponent ?? "unknown"
        let suffix = message.kind == .text ? "txt" : "bin"
        bytes = message.bytes
        path = (directory.hasSuffix("/") ? directory : directory + "/") + "message-\(padded)-\(sender).\(suffix)"
        self.report = report
    }

    /// Writes the file; returns the report (with `saved` set when it was written) and, when it
    /// could not be, the one-line problem.
    public func perform() -> (report: ReceivedMessageReport, problem: String?) {
        var report = report
        if let problem = FileWriter.write(bytes, to: path) {
            return (report, "cannot save the message to \(path): \(problem) (check --save-dir)")
        }
        report.saved = path
        return (report, nil)
    }
}
