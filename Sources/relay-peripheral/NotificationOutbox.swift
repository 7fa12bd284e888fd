import RelayProtocol

/// One value ready to be notified, and what to report once it has been handed over.
struct OutgoingValue: Equatable, Sendable {
    let bytes: [UInt8]
    /// `notified` after a counter, `sent` after a message's last chunk, else nil.
    let completion: PeripheralEvent?
    /// The counter this value carries, if it is one.
    let counter: Counter?
}

/// The queue of values waiting to be notified: counters and framed messages, in the order
/// they were asked for. Messages are framed lazily, so a queued 1 MiB message costs its bytes
/// once, not once more per chunk.
struct NotificationOutbox {
    private enum Item {
        case counter(Counter, centrals: Int)
        case message(MessageFrames, report: PeripheralEvent)
    }

    private var items: [Item] = []
    private var head = 0

    /// Whether anything waits.
    var isEmpty: Bool { head == items.count }

    /// Queued counters and messages (a message partly sent counts as one).
    var count: Int { items.count - head }

    mutating func append(counter: Counter, centrals: Int) {
        items.append(.counter(counter, centrals: centrals))
    }

    /// Queues `frames`; `report` (a `sent` event) is returned with the last chunk.
    mutating func append(frames: MessageFrames, report: PeripheralEvent) {
        items.append(.message(frames, report: report))
    }

    /// The next value to notify, or nil when empty.
    mutating func next() -> OutgoingValue? {
        while head < items.count {
            switch items[head] {
            case .counter(let counter, let centrals):
                popFront()
                return OutgoingValue(
                    bytes: counter.encoded, completion: .notified(value: counter.value, centrals: centrals), counter: counter)
            case .message(var frames, let report):
                guard let frame = frames.next() else {
                    popFront()
                    continue
                }
                let finished = frames.underestimatedCount == 0
                if finished {
                    popFront()
                } else {
                    items[head] = .message(frames, report: report)
                }
                return OutgoingValue(bytes: frame, completion: finished ? report : nil, counter: nil)
            }
        }
        return nil
    }

    /// Empties the queue; returns how many messages (started or not) and counters were dropped.
    mutating func removeAll() -> (messages: Int, counters: Int) {
        var messages = 0, counters = 0
        for item in items[head...] {
            switch item {
            case .counter: counters += 1
            case .message: messages += 1
            }
        }
        items.removeAll()
        head = 0
        return (messages, counters)
    }

    private mutating func popFront() {
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
    }
}
