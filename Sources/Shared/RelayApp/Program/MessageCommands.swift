import RelayCLI
import RelayProtocol
import RelayREPL

/// The REPL commands both programs have, with the same names, help and errors: `send TEXT`
/// and `send-file PATH`. Each builds the message and hands it to the program's `run`.
public enum MessageCommands {
    /// The largest file `send-file` reads.
    public static let sendFileLimit = 1 << 28

    /// `send TEXT`; `chunking` says how the program splits messages (for `help send`).
    public static func send(
        chunking: String, run: @escaping (Message, CommandContext) throws -> CommandOutcome
    ) -> CommandSpec {
        CommandSpec(
            "send", synopsis: "TEXT", summary: "Send TEXT as a framed text message.",
            details: """
                Sends the rest of the line as UTF-8 text through the framing protocol, \(chunking).
                Quote it ("...") to keep leading spaces or use \\n escapes. A 'sent' event follows
                once the last frame is handed over.
                """,
            shape: .restOfLine(required: true)
        ) { context in
            try run(Message(text: try context.requiredArgument(0, "TEXT")), context)
        }
    }

    /// The last component of `path` (`photo.jpg` of `~/Pictures/photo.jpg/`), the name a file is sent under.
    public static func baseName(of path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
    }

    /// `send-file PATH`: the file's bytes as one binary message, under the file's base name.
    public static func sendFile(run: @escaping (Message, CommandContext) throws -> CommandOutcome) -> CommandSpec {
        CommandSpec(
            "send-file", synopsis: "PATH", summary: "Send a file's bytes as a framed binary message.",
            details: """
                Sends the file (at most 256 MiB) like send, as a binary message that carries the
                file's name (protocol 2; a peer of protocol 1 gets the bytes only). The file is read
                as it goes, not held in memory (for a protocol-1 peer it is read whole).
                """,
            shape: .restOfLine(required: true), completion: .paths
        ) { context in
            let path = try context.requiredArgument(0, "PATH")
            let file = try FileContent(path: path, maximumBytes: sendFileLimit, command: "send-file")
            return try run(Message(kind: .binary, stored: file, name: Array(baseName(of: path).utf8)), context)
        }
    }
}
