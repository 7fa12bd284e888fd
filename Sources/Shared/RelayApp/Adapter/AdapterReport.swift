import RelayCLI

/// The adapter part of `status`, the same on both programs: which adapter, and its state.
public struct AdapterReport: Equatable, Sendable {
    public let adapter: AdapterInfo?
    public let state: AdapterState

    public init(adapter: AdapterInfo?, state: AdapterState) {
        self.adapter = adapter
        self.state = state
    }

    /// `adapter` (its name), `address` and `state` (JSON null while unknown).
    public var fields: [(String, JSONValue)] {
        [
            ("adapter", adapter.map { .string($0.name) } ?? .null),
            ("address", adapter?.address.map { .string($0.description) } ?? .null),
            ("state", .string(state.word)),
        ]
    }

    /// `hci0 00:AA:01:00:00:00 (powered on)`, `none (waiting)`.
    public var summary: String {
        "\(adapter?.description ?? "none") (\(state == .unknown ? "waiting" : state.phrase))"
    }
}
