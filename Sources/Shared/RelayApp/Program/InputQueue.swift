/// Feeds a session its inputs one at a time. An input that arrives while another is being
/// handled (a driver feeding back the outcome of an action it just performed) waits its turn, so
/// a session is never re-entered and actions run in the order the session returned them.
public final class InputQueue<Input> {
    private let handle: (Input) -> Void
    private let afterBatch: () -> Void
    private var pending: [Input] = []
    private var running = false

    /// `handle` runs once per input; `afterBatch` once the queue is empty again.
    public init(handle: @escaping (Input) -> Void, afterBatch: @escaping () -> Void = {}) {
        self.handle = handle
        self.afterBatch = afterBatch
    }

    /// Queues `input` and, unless already handling one, handles every queued input.
    public func feed(_ input: Input) {
        pending.append(input)
        guard !running else { return }
        running = true
        var index = 0
        while index < pending.count {
            let next = pending[index]
            index += 1
            handle(next)
            if index > 256 {
                pending.removeFirst(index)
                index = 0
            }
        }
        pending.removeAll()
        running = false
        afterBatch()
    }
}
