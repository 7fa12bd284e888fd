import RelayProtocol

/// The session frames a program sends ahead of its data, in order: hellos or welcomes,
/// acknowledgements and aborts. Bounded, whatever a peer writes: a newer acknowledgement of a
/// message replaces the one still queued for it, an abort or a welcome is queued once, and at
/// most `maximumPerSession` frames other than aborts wait for one session (the oldest goes: an
/// acknowledgement lost this way is asked for again, as any lost on the air). Aborts are never
/// let go: a receiver skips to the next message only on its abort, and there are at most as many
/// as messages on their way. Both programs keep theirs in one of these.
public struct ControlFrames: Sendable, Equatable {
    /// The most frames queued for one session (or, for frames without one, for the peer).
    public static let maximumPerSession = 16

    public private(set) var frames: [SessionFrame] = []
    /// Frames let go because `maximumPerSession` were queued for their session.
    public private(set) var dropped = 0

    public init() {}

    /// Whether nothing waits.
    public var isEmpty: Bool { frames.isEmpty }

    /// Frames waiting.
    public var count: Int { frames.count }

    /// Queues `frame` last (an acknowledgement in the place of the one it replaces).
    public mutating func append(_ frame: SessionFrame) {
        if let index = frames.firstIndex(where: { Self.replaces(frame, $0) }) {
            frames[index] = frame
            return
        }
        if !Self.isAbort(frame) { makeRoom(for: Self.session(of: frame)) }
        frames.append(frame)
    }

    /// Queues `frame` first (a welcome: the session's earlier one, if still queued, goes).
    public mutating func putFirst(_ frame: SessionFrame) {
        frames.removeAll { Self.replaces(frame, $0) }
        makeRoom(for: Self.session(of: frame))
        frames.insert(frame, at: 0)
    }

    /// The next frame to send, taken off the queue.
    public mutating func popFirst() -> SessionFrame? {
        frames.isEmpty ? nil : frames.removeFirst()
    }

    /// Forgets every frame (the link is gone).
    public mutating func removeAll() {
        frames = []
    }

    private mutating func makeRoom(for session: SessionNumber?) {
        let queued = frames.indices.filter {
            Self.session(of: frames[$0]) == session && !Self.isAbort(frames[$0])
        }
        guard queued.count >= Self.maximumPerSession, let oldest = queued.first else { return }
        frames.remove(at: oldest)
        dropped += 1
    }

    /// Whether `new` makes the queued `old` useless: the same kind of frame about the same session
    /// and message (an acknowledgement says more than the one before it).
    private static func replaces(_ new: SessionFrame, _ old: SessionFrame) -> Bool {
        switch (new, old) {
        case (.acknowledgement(let newer), .acknowledgement(let older)):
            newer.session == older.session && newer.transfer == older.transfer
        case (.abort(let newer), .abort(let older)):
            newer.session == older.session && newer.transfer == older.transfer
        case (.welcome(let newer), .welcome(let older)):
            newer.session == older.session
        case (.hello, .hello):
            true
        default:
            false
        }
    }

    private static func isAbort(_ frame: SessionFrame) -> Bool {
        if case .abort = frame { true } else { false }
    }

    private static func session(of frame: SessionFrame) -> SessionNumber? {
        switch frame {
        case .welcome(let welcome): welcome.session
        case .acknowledgement(let ack): ack.session
        case .abort(let abort): abort.session
        case .data(let data): data.session
        case .hello: nil
        }
    }
}
