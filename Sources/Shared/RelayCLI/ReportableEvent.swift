/// Something a program reports to the user: printed by ``Console`` as one human line,
/// or as one JSON object per line in `--json` mode, and recorded for `wait EVENT`.
///
/// Programs define their own event enums and conform them to this protocol.
public protocol ReportableEvent {
    /// The event name used by `wait NAME` and as the JSON `"event"` value (e.g. `connected`).
    var name: String { get }
    /// Extra JSON fields, in output order (the keys `event` and `time` are reserved).
    var fields: [(String, JSONValue)] { get }
    /// The line shown in human mode (may be empty to show nothing).
    var humanDescription: String { get }
    /// Whether, in human mode, the event is a live line (see ``LiveLine``); nil for most events.
    var liveLine: LiveLine? { get }
}

extension ReportableEvent {
    public var liveLine: LiveLine? { nil }
}

/// A line a terminal keeps live above the prompt, updated in place (a transfer's progress).
public enum LiveLine: Sendable, Equatable {
    /// Show `text` as live line `key`, in place of its earlier text. In human mode without a
    /// terminal prompt nothing is printed (pipe mode prints no progress lines).
    case update(key: String, text: String)
    /// Live line `key` is over: it goes away and the event is printed as usual.
    case end(key: String)
}

/// A ready-made event for cases where an enum would be overkill.
public struct SimpleEvent: ReportableEvent, Sendable {
    public let name: String
    public let fields: [(String, JSONValue)]
    public let humanDescription: String

    /// An event named `name`, shown as `human`, with JSON `fields`.
    public init(_ name: String, human: String, fields: [(String, JSONValue)] = []) {
        self.name = name
        self.humanDescription = human
        self.fields = fields
    }
}
