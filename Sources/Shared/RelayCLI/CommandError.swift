/// A command failure with a message meant for the user (one line).
public struct CommandError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The text printed after `error: `.
    public let message: String
    /// A failure with `message`.
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
