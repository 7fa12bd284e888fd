/// The commands a session has not finished yet, each keyed by what it waits for (a scan's start,
/// the link, a read, a message's `sent`, ...): one place to find, finish and fail them. At most
/// one command waits for each thing; they are kept in the order they came, so that failing many
/// at once (the link went) finishes them in that order.
public struct PendingCommands<Awaited: Hashable & Sendable>: Sendable {
    private var waiting: [(awaited: Awaited, token: CommandToken)] = []

    public init() {}

    /// `token` waits for `awaited` (through `begin`; a session lets one command at a time wait
    /// for each thing: it refuses a second `read`, `pair`, ... while one waits).
    private mutating func add(_ token: CommandToken, waitingFor awaited: Awaited) {
        waiting.append((awaited, token))
    }

    /// Whether a command waits for `awaited`.
    public func isWaiting(for awaited: Awaited) -> Bool {
        waiting.contains { $0.awaited == awaited }
    }

    /// The command that waited for `awaited`, no longer waiting (nil: none did).
    public mutating func take(_ awaited: Awaited) -> CommandToken? {
        guard let index = waiting.firstIndex(where: { $0.awaited == awaited }) else { return nil }
        return waiting.remove(at: index).token
    }

    /// Finishes the command waiting for `awaited`: done (nil) or failed with `problem`.
    public mutating func finish<Action: ProgramActions>(_ awaited: Awaited, _ problem: Action.Problem?) -> [Action] {
        take(awaited).map { [.finish($0, problem)] } ?? []
    }

    /// Finishes every command whose awaited thing `ends` (each with its `problem`, nil: done),
    /// in the order they came.
    public mutating func finishAll<Action: ProgramActions>(
        where ends: (Awaited) -> Bool, _ problem: (Awaited) -> Action.Problem?
    ) -> [Action] {
        let ended = waiting.filter { ends($0.awaited) }
        waiting.removeAll { ends($0.awaited) }
        return ended.map { .finish($0.token, problem($0.awaited)) }
    }
}

/// How a command went once its session took it (a refusal is thrown instead, with nothing done).
/// Both programs' sessions make one of these per command and hand it to `PendingCommands.begin`.
public enum CommandStart<Action, Awaited> {
    /// Done now, after these actions.
    case done([Action])
    /// Started with these actions; it finishes when `awaited` happens (`PendingCommands.finish`):
    /// always an answer that comes later, never within the command's own input.
    case waiting(for: Awaited, [Action])
}

/// Who a command's counter or message goes to, which decides when the command ends: the one
/// rule for `notify`/`write`, `send` and `send-file` in both programs.
public enum Audience<Awaited> {
    /// The program's one peer (relay-central's peripheral): the command ends when what it sent has
    /// gone (a counter written, a message `sent`), awaited as this, so that a script's next line
    /// (a `read`, a `disconnect`) comes after it; a failure is the command's.
    case peer(Awaited)
    /// A room (relay-peripheral's centrals, however many hear it now or subscribe later): the
    /// command ends once it is queued, and the `notified` / `sent` events follow. A presenter's
    /// prompt does not wait for the slowest of fifteen centrals, nor for the two `sent` a message
    /// for centrals of both protocols gets.
    case room
}

extension CommandStart {
    /// A command that queued a counter or a message for `audience`, after `actions`.
    public static func sending(_ actions: [Action], to audience: Audience<Awaited>) -> CommandStart {
        switch audience {
        case .peer(let awaited): return .waiting(for: awaited, actions)
        case .room: return .done(actions)
        }
    }
}

extension PendingCommands {
    /// The actions of command `token`: refused with its problem; done now, its actions then its
    /// finish; or started, its actions, kept until what it waits for happens.
    public mutating func begin<Action: ProgramActions>(
        _ token: CommandToken, _ start: Result<CommandStart<Action, Awaited>, Action.Problem>
    ) -> [Action] where Action.Problem: Error {
        switch start {
        case .failure(let problem): return [.finish(token, problem)]
        case .success(.done(let actions)): return actions + [.finish(token, nil)]
        case .success(.waiting(let awaited, let actions)):
            add(token, waitingFor: awaited)
            return actions
        }
    }
}
