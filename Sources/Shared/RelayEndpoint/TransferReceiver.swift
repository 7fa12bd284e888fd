import RelayProtocol

/// The receiving half of protocol version 2 for one sender (one peer process): rebuilds its
/// messages from data frames that may come lost, twice or out of order, acknowledges what it
/// holds, keeps a partial message across a link drop for the resume time-out, and delivers each
/// message once, after its CRC-32C matched.
///
/// A plain value: frames, link changes and time go in, `Action`s come out. The owner sends the
/// acknowledgements it is given (with `session` in them), reports the rest, and calls `tick` at
/// `nextDeadline`.
///
/// A text or binary message is held whole and delivered with its bytes. A file (a message whose
/// header carries a name) is not held: its bytes leave in order as `write` actions, so memory is
/// bounded by the window, not by the file; `deliverFile` then says its CRC-32C matched.
public struct TransferReceiver: Sendable {
    struct Partial: Sendable {
        let transfer: TransferID
        var header: MessageHeader?
        /// Stream bytes before the header could be parsed.
        var headerBytes: [UInt8] = []
        /// The message bytes of a text or binary message (a file's leave in `write` actions).
        var payload: [UInt8] = []
        /// Message bytes taken in order (held in `payload`, or written out for a file).
        var messageBytes = 0
        /// A file's running SHA-256 (nil for a message that is held whole).
        var digest: SHA256?
        /// Every stream byte below this is held (in `headerBytes` or `payload`).
        var received = 0
        /// Bytes held beyond `received`.
        var pending: OutOfOrderStore
        var crc = CRC32C()
        var lastFrameAt: Double
        var lastProgressAt: Double = -.infinity

        var headerLength: Int { header?.encodedLength ?? 0 }
        var messageReceived: Int { max(0, received - headerLength) }
        var streamLength: Int? { header?.streamLength }
    }

    public let configuration: Configuration
    /// The session number acknowledgements carry (the central's).
    public var session: SessionNumber
    public internal(set) var counts = Counts()

    /// The transfer expected next (the one in progress, or the one after the last finished).
    public internal(set) var expected: TransferID?
    var partial: Partial?
    /// The last finished transfers and how they ended, newest last (answers to duplicates).
    var finished: [(transfer: TransferID, status: AcknowledgementStatus, streamLength: Int)] = []
    var lastDuplicateAck: [TransferID: Double] = [:]
    /// Complete messages handed over and not yet saved (`acknowledgesAfterSaving`), with their
    /// stream lengths: their final acknowledgement waits for `saved`.
    var saving: [TransferID: Int] = [:]
    var linked = true
    var downSince: Double?
    /// When a delayed acknowledgement is due; nil when nothing is unacknowledged.
    var ackDue: Double?
    var bytesSinceAck = 0

    /// A receiver; `session` goes into its acknowledgements.
    public init(configuration: Configuration = Configuration(), session: SessionNumber) {
        self.configuration = configuration
        self.session = session
    }

    /// The message in progress: transfer, message bytes held in order, total (nil until its header came).
    public var inProgress: (transfer: TransferID, received: Int, total: Int?)? {
        partial.map { ($0.transfer, $0.messageReceived, $0.header.map { Int($0.length) }) }
    }

    /// Stream bytes held out of order (bounded by the window).
    public var bufferedOutOfOrder: Int { partial?.pending.count ?? 0 }

    /// Bytes of memory held for the message in progress: what came in order of a text or binary
    /// message (at most twice its bytes received, never its declared length) and the out-of-order
    /// buffer (the window, once a byte came out of order).
    public var heldMemory: Int {
        guard let partial else { return 0 }
        return partial.payload.capacity + partial.headerBytes.capacity + partial.pending.allocated
    }

    // MARK: Frames

    /// A data frame from the sender.
    public mutating func receive(_ frame: DataFrame, at now: Double) -> [Action] {
        if saving[frame.transfer] != nil {
            counts.duplicateFrames += 1
            return []  // answered once it is saved
        }
        if let done = finished.last(where: { $0.transfer == frame.transfer }) {
            counts.duplicateFrames += 1
            return answerDuplicate(done.transfer, done.status, done.streamLength, at: now)
        }
        if partial == nil {
            guard expected == nil || frame.transfer == expected else {
                counts.ignoredFrames += 1
                return []
            }
            expected = frame.transfer
            partial = Partial(
                transfer: frame.transfer,
                pending: OutOfOrderStore(
                    capacity: configuration.window, maximumRanges: configuration.maximumHeldRanges),
                lastFrameAt: now)
        }
        guard var current = partial, current.transfer == frame.transfer else {
            counts.ignoredFrames += 1
            return []
        }
        partial = nil
        current.lastFrameAt = now
        var actions: [Action] = []
        let outcome = merge(frame, into: &current, actions: &actions)
        switch outcome {
        case .kept(let newGap):
            partial = current
            actions += Self.progressIfDue(&partial!, every: configuration.progressInterval, at: now)
            if newGap || bytesSinceAck >= configuration.ackEvery {
                actions.append(acknowledgement(at: now))
            } else if ackDue == nil {
                ackDue = now + configuration.ackDelay
            }
        case .finished(let status, let completed):
            if let completed, let header = current.header {
                counts.delivered += 1
                let length = Int(header.length)
                actions.append(.progress(current.transfer, received: length, total: length))
                switch completed {
                case .message(let message): actions.append(.deliver(current.transfer, header, message))
                case .file(let digest): actions.append(.deliverFile(current.transfer, header, sha256: digest))
                }
                if configuration.acknowledgesAfterSaving {
                    saving[current.transfer] = header.streamLength
                    expected = current.transfer.next
                    clearAck()
                    return actions
                }
            } else {
                actions.append(
                    .dropped(
                        Dropped(
                            transfer: current.transfer, header: current.header, received: current.messageReceived,
                            cause: .refused(status))))
            }
            actions += finish(current.transfer, status, streamLength: current.streamLength ?? current.received, at: now)
        }
        return actions
    }

    /// An abort from the sender.
    public mutating func abort(_ frame: Abort, at now: Double) -> [Action] {
        if let current = partial, current.transfer == frame.transfer {
            partial = nil
            let dropped = Dropped(
                transfer: current.transfer, header: current.header, received: current.messageReceived,
                cause: .senderGaveUp(frame.reason))
            remember(current.transfer, .gaveUp, streamLength: current.streamLength ?? current.received)
            expected = current.transfer.next
            clearAck()
            return [.dropped(dropped)]
        }
        if partial == nil, expected == frame.transfer || expected == nil {
            expected = frame.transfer.next
        }
        return []
    }

    /// The owner saved (or failed to save) a message it was handed with `acknowledgesAfterSaving`:
    /// its final acknowledgement, `delivered` or `notSaved`, goes now (or when the link is back).
    public mutating func saved(_ transfer: TransferID, _ ok: Bool, at now: Double) -> [Action] {
        guard let streamLength = saving.removeValue(forKey: transfer) else { return [] }
        let status: AcknowledgementStatus = ok ? .delivered : .notSaved
        remember(transfer, status, streamLength: streamLength)
        lastDuplicateAck[transfer] = now
        return linked ? [finalAcknowledgement(transfer, status, streamLength)] : []
    }

    /// Messages handed over that wait for `saved`.
    public var awaitingSave: Int { saving.count }

    /// A compact data frame from the sender: bytes of the message in progress, placed within
    /// `CompactDataFrame.span` of the first byte missing. Ignored (counted) while the link is down
    /// or no message is in progress: a sender sends one only after this receiver acknowledged
    /// the message on the link, so an honest one never meets that.
    public mutating func receive(_ frame: CompactDataFrame, at now: Double) -> [Action] {
        guard linked, let current = partial, let offset = frame.offset(near: current.received) else {
            counts.ignoredFrames += 1
            return []
        }
        let data = DataFrame(session: session, transfer: current.transfer, offset: UInt32(offset), bytes: frame.bytes)
        return receive(data, at: now)
    }

    // MARK: The link

    /// The sender's link went down: acknowledgements wait, the partial message is kept.
    public mutating func linkDown(at now: Double) {
        linked = false
        downSince = now
        clearAck()
    }

    /// The sender is back (its hello or welcome came) and says `next` is the transfer it sends
    /// next. Answers with what is held, so the sender resends only what is missing.
    public mutating func linkUp(next: TransferID, at now: Double) -> [Action] {
        linked = true
        downSince = nil
        var actions: [Action] = []
        if let current = partial {
            guard current.transfer != next else {
                partial?.lastFrameAt = now
                return [acknowledgement(at: now)]
            }
            partial = nil
            actions.append(
                .dropped(
                    Dropped(
                        transfer: current.transfer, header: current.header, received: current.messageReceived,
                        cause: .senderMovedOn)))
            remember(current.transfer, .gaveUp, streamLength: current.streamLength ?? current.received)
        }
        if saving[next] != nil {
            // Its final word goes once it is saved.
            expected = next.next
        } else if let done = finished.last(where: { $0.transfer == next }) {
            // The sender missed how it ended.
            expected = next.next
            actions.append(finalAcknowledgement(done.transfer, done.status, done.streamLength))
        } else {
            expected = next
        }
        return actions
    }

    /// The sender is gone for good (a new process took its place, or the program stops): the
    /// partial message, if any, is dropped with `why`.
    public mutating func close(_ why: String) -> [Action] {
        guard let current = partial else { return [] }
        partial = nil
        clearAck()
        return [
            .dropped(
                Dropped(
                    transfer: current.transfer, header: current.header, received: current.messageReceived,
                    cause: .senderGone(why)))
        ]
    }

    // MARK: Time

    /// When `tick` has something to do.
    public var nextDeadline: Double? {
        var deadlines: [Double] = []
        if linked, let ackDue { deadlines.append(ackDue) }
        if let current = partial {
            if let downSince {
                deadlines.append(downSince + configuration.resumeTimeout)
            } else {
                deadlines.append(current.lastFrameAt + configuration.stallTimeout)
            }
        }
        return deadlines.min()
    }

    /// Runs what is due at `now`.
    public mutating func tick(at now: Double) -> [Action] {
        var actions: [Action] = []
        if let current = partial {
            let cause: DropCause?
            if let downSince, now >= downSince + configuration.resumeTimeout {
                cause = .notResumed(seconds: Int(configuration.resumeTimeout))
            } else if downSince == nil, now >= current.lastFrameAt + configuration.stallTimeout {
                cause = .stalled(seconds: Int(configuration.stallTimeout))
            } else {
                cause = nil
            }
            if let cause {
                partial = nil
                actions.append(
                    .dropped(
                        Dropped(
                            transfer: current.transfer, header: current.header, received: current.messageReceived,
                            cause: cause)))
                actions += finish(
                    current.transfer, .gaveUp, streamLength: current.streamLength ?? current.received, at: now)
            }
        }
        if linked, let due = ackDue, now >= due, partial != nil {
            actions.append(acknowledgement(at: now))
        }
        return actions
    }
}
