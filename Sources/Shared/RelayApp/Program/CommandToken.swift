/// Identifies a command handed to a session, so the session can say when it is finished
/// (`ProgramDriver` completes the REPL's command then).
public struct CommandToken: Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    public let value: Int

    public init(_ value: Int) { self.value = value }
    public init(integerLiteral value: Int) { self.value = value }

    /// The token after this one.
    public var next: CommandToken { CommandToken(value + 1) }
    public var description: String { String(value) }
}
