import Synchronization

/// A queue of datagrams handed from a reader thread to the event loop's thread.
///
/// Bounded by memory only: the reader never waits for the consumer, so the socket it reads is
/// emptied as fast as the kernel fills it, however long the consumer's loop turn takes.
/// The producer appends and learns whether the consumer must be woken (once per batch the
/// consumer has not taken yet); the consumer takes everything queued at once.
public final class DatagramInbox: Sendable {
    private struct State {
        var datagrams: [[UInt8]] = []
        var ended = false
        var wakePending = false
        var peak = 0
    }

    /// What `take()` returns: the datagrams in arrival order, and whether the producer ended.
    public struct Batch: Equatable, Sendable {
        public var datagrams: [[UInt8]]
        /// The producer finished (end of stream or error): nothing follows these datagrams.
        public var ended: Bool

        public init(datagrams: [[UInt8]], ended: Bool) {
            self.datagrams = datagrams
            self.ended = ended
        }
    }

    private let state = Mutex(State())

    public init() {}

    /// Queues datagrams (in order). Returns true when the consumer must be woken: the first
    /// append since its last `take()`.
    @discardableResult
    public func append(_ datagrams: [[UInt8]]) -> Bool {
        guard !datagrams.isEmpty else { return false }
        return state.withLock { state in
            guard !state.ended else { return false }
            state.datagrams.append(contentsOf: datagrams)
            state.peak = max(state.peak, state.datagrams.count)
            return Self.markWake(&state)
        }
    }

    /// Marks the end of the stream: nothing more will be appended. Returns true when the
    /// consumer must be woken.
    @discardableResult
    public func finish() -> Bool {
        state.withLock { state in
            guard !state.ended else { return false }
            state.ended = true
            return Self.markWake(&state)
        }
    }

    /// Takes everything queued; the next append wakes the consumer again.
    public func take() -> Batch {
        state.withLock { state in
            let batch = Batch(datagrams: state.datagrams, ended: state.ended)
            state.datagrams = []
            state.wakePending = false
            return batch
        }
    }

    /// How many datagrams wait now.
    public var count: Int { state.withLock { $0.datagrams.count } }

    /// The most datagrams that ever waited at once (how far the consumer fell behind).
    public var peakCount: Int { state.withLock { $0.peak } }

    private static func markWake(_ state: inout State) -> Bool {
        defer { state.wakePending = true }
        return !state.wakePending
    }
}
