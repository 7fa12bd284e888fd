/// Remembers which events happened when, and implements the `wait EVENT` rule.
///
/// Every recorded event gets the next sequence number. When a command that is not
/// "transparent" starts (anything but `wait`, `sleep`, `help` and commands declared
/// ``CommandSpec/isTransparentToWait``), the REPL calls ``markCommandStart()``.
///
/// A `wait NAME` is satisfied by the first event called NAME that arrived after the
/// latest mark and that no earlier `wait` already used. So
/// `connect 0` then `wait connected` then `wait ready` works whether the events came
/// while `connect` was running or later, and `wait counter` twice needs two counters.
/// Otherwise the wait registers a waiter that fires on the next such event.
public final class EventJournal {
    /// A registered waiter, so it can be cancelled (time-out, Ctrl-C).
    public struct WaiterID: Hashable, Sendable {
        fileprivate let id: Int
    }

    private struct Waiter {
        let name: String
        let satisfied: () -> Void
    }

    /// Sequence number of the latest recorded event (0 before any).
    public private(set) var sequence = 0
    /// Sequence number at the latest command start.
    public private(set) var mark = 0
    /// How many events of each name arrived since the mark and were not used by a wait.
    private var unused: [String: Int] = [:]
    private var waiters: [Int: Waiter] = [:]
    private var nextWaiterID = 0
    /// An empty journal.
    public init() {}

    /// Records an event; the oldest waiter for that name (if any) is satisfied by it.
    public func record(_ name: String) {
        sequence += 1
        if let (id, waiter) = waiters.filter({ $0.value.name == name }).min(by: { $0.key < $1.key }) {
            waiters[id] = nil
            waiter.satisfied()
            return
        }
        unused[name, default: 0] += 1
    }

    /// A command started: events from now on count for the following `wait`s.
    public func markCommandStart() {
        mark = sequence
        unused.removeAll(keepingCapacity: true)
    }

    /// Uses up the first unused event called `name` since the mark, if there is one.
    public func consume(_ name: String) -> Bool {
        guard let count = unused[name], count > 0 else { return false }
        unused[name] = count == 1 ? nil : count - 1
        return true
    }

    /// Number of unused events called `name` since the mark.
    public func unusedCount(of name: String) -> Int {
        unused[name] ?? 0
    }

    /// Waits for `name`: calls `satisfied` at once (synchronously) and returns nil if an
    /// unused event is already there; otherwise registers a waiter and returns its id.
    public func wait(for name: String, satisfied: @escaping () -> Void) -> WaiterID? {
        if consume(name) {
            satisfied()
            return nil
        }
        nextWaiterID += 1
        waiters[nextWaiterID] = Waiter(name: name, satisfied: satisfied)
        return WaiterID(id: nextWaiterID)
    }

    /// Removes a waiter (its callback will not be called). Harmless if already gone.
    public func cancel(_ waiter: WaiterID) {
        waiters[waiter.id] = nil
    }

    /// Whether any waiter is registered.
    public var hasWaiters: Bool { !waiters.isEmpty }
}
