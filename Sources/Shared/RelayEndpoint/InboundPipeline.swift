import RelayProtocol

/// One sender's inbound side, as both programs run it: values in, `InboundEvent`s out.
///
/// It reassembles messages (counters pass through), paces the reports a misbehaving sender
/// causes (protocol errors and `receiving` announcements, at most 5 a second each, the
/// suppressed ones counted), counts what arrived and remembers when a partial message last
/// made progress, so that the owner can drop it when it stalls. No I/O; time is an input.
public struct InboundPipeline: Sendable {
    /// Reports of each kind let through per second.
    public static let reportsPerSecond = 5

    /// Counters received.
    public private(set) var counters = 0
    /// Complete messages received.
    public private(set) var messages = 0
    /// The last value received (counter or frame).
    public private(set) var lastValue: [UInt8]?
    /// The last counter received.
    public private(set) var lastCounter: Counter?
    /// When the message in progress last received a frame (monotonic seconds); nil when none is
    /// in progress. A counter in between is not progress.
    public private(set) var partialSince: Double?

    private var reassembler: Reassembler
    private var errorReports = RateLimiter(limit: InboundPipeline.reportsPerSecond, per: 1)
    private var receivingReports = RateLimiter(limit: InboundPipeline.reportsPerSecond, per: 1)
    /// The incomplete message a `receiving` event was reported for.
    private var announced: MessageID?

    /// A pipeline accepting messages of up to `maxMessage` bytes.
    public init(maxMessage: Int) {
        reassembler = Reassembler(maxMessageLength: maxMessage)
    }

    /// How far the message in progress has come, if one is.
    public var progress: ReassemblyProgress? { reassembler.progress }

    /// Handles one value received at `time`.
    public mutating func receive(_ value: [UInt8], at time: Double) -> [InboundEvent] {
        lastValue = value
        var events: [InboundEvent] = []
        for event in reassembler.receive(value) {
            switch event {
            case .counter(let counter):
                counters += 1
                lastCounter = counter
                events.append(.counter(counter))
            case .message(let received):
                messages += 1
                events.append(.message(received.message, id: received.id, number: messages))
            case .error(let error, let dropped):
                guard case .allow(let suppressed) = errorReports.admit(now: time) else { continue }
                events.append(.protocolError(error, suppressedBefore: suppressed))
                if let dropped { events.append(.dropped(dropped, .protocolError(error))) }
            }
        }
        let progress = reassembler.progress
        if let progress, progress.id != announced, case .allow = receivingReports.admit(now: time) {
            events.append(.receiving(progress))
        }
        announced = progress?.id
        if progress == nil {
            partialSince = nil
        } else if value.count != Counter.encodedLength || partialSince == nil {
            partialSince = time
        }
        return events
    }

    /// Gives up the message in progress (the link ended, or it stalled): its `dropped` event.
    public mutating func reset(because reason: DropReason) -> InboundEvent? {
        partialSince = nil
        announced = nil
        return reassembler.reset().map { .dropped($0, reason) }
    }

    /// When the message in progress stalls if no frame comes within `timeout` seconds.
    public func stallDeadline(timeout: Double) -> Double? {
        partialSince.map { $0 + timeout }
    }
}
