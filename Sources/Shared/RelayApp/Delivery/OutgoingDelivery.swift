import RelayEndpoint
import RelayProtocol

/// What the outgoing half of protocol 2 leaves to its program, once it has done its own part.
public enum OutboundOutcome<Recipient: Equatable & Sendable>: Equatable, Sendable {
    /// Print this event.
    case report(TransferEvent)
    /// Message `number` reached its end for `recipient`: delivered, or not.
    case settled(number: Int, to: Recipient, delivered: Bool)
    /// `recipient` broke protocol 2: cut it off.
    case breach(by: Recipient, ProtocolBreach)
}

/// One data frame the sender may put on the air now.
public struct OutgoingDataFrame<Recipient: Hashable & Sendable>: Equatable, Sendable {
    /// The frame, encoded as a session value.
    public let bytes: [UInt8]
    /// The program's number for the message it carries.
    public let number: Int
    public let transfer: TransferID
    /// When it carries the message's last byte and the message was not reported `sent` yet:
    /// what `OutgoingDelivery.sent(_:)` makes the `sent` of, once the frame went out.
    public let final: FinalFrame?
    /// The recipients it is for (those that do not hold its bytes yet): a carrier that reaches each
    /// recipient on its own (the L2CAP lane) takes it to these only.
    public let recipients: [Recipient]
}

/// A data frame that carries its message's last byte (the first time one does), with what the
/// message's `sent` says of it: both programs report `sent` when such a frame went out (written,
/// notified, or queued on a channel), not when it was cut.
public struct FinalFrame: Equatable, Sendable {
    public let number: Int
    public let transfer: TransferID
    /// The MTU and carrier it was cut for (the `sent` counts the frames at that size).
    let mtu: MTU
    let carrier: ValueCarrier
}

/// The sending half of protocol 2 as both programs run it: the `TransferSender`, the streams of
/// the messages on their way, the control frames that go before any data (hellos, welcomes,
/// acknowledgements, aborts), the messages reported `sent` and those that failed. No I/O.
public struct OutgoingDelivery<Recipient: Hashable & Comparable & Sendable>: Sendable {
    public var sender: TransferSender<Recipient>
    public private(set) var streams = OutgoingStreams()
    /// Frames sent before anything else.
    public var control = ControlFrames()
    /// Messages whose every byte went out once (`sent` reported).
    private var fullySent: Set<Int> = []
    /// Messages that failed (for some recipient), for the exit status of a scripted run.
    public private(set) var failed = 0

    public init(settings: DeliverySettings) {
        sender = TransferSender(configuration: settings.senderConfiguration, firstTransfer: TransferID(1))
    }

    /// Queues message `number` for `recipients`.
    public mutating func enqueue(_ message: Message, number: Int, for recipients: [Recipient], at now: Double) {
        let entry = streams.add(message, number: number)
        sender.enqueue(
            number: number, headerLength: entry.header.encodedLength, streamLength: entry.header.streamLength,
            for: recipients, at: now)
    }

    /// The next data frame that may go now, cut for `mtu` on `carrier` and addressed to the
    /// session `session` names for its recipients; a compact one where the sender allows it and
    /// `compactAllowed` (no other receiver hears it) and the value is small.
    public mutating func nextDataFrame(
        at now: Double, mtu: MTU, carrier: ValueCarrier, compactAllowed: Bool = true,
        session: ([Recipient]) -> SessionNumber
    ) -> OutgoingDataFrame<Recipient>? {
        let value = mtu.sendValueLength(carrier)
        let compactBytes =
            compactAllowed && value <= CompactDataFrame.largestValue ? value - CompactDataFrame.headerLength : nil
        guard
            let transmission = sender.nextTransmission(
                at: now, maxBytes: Self.dataPerFrame(mtu, carrier), compactBytes: compactBytes),
            let entry = streams[transmission.number]
        else { return nil }
        let bytes: [UInt8]
        if transmission.compact {
            bytes =
                CompactDataFrame(offset: transmission.range.lowerBound, bytes: entry.bytes(transmission.range))
                .encoded
        } else {
            let frame = DataFrame(
                session: session(transmission.recipients), transfer: transmission.transfer,
                offset: UInt32(transmission.range.lowerBound), bytes: entry.bytes(transmission.range))
            bytes = SessionFrame.data(frame).encoded
        }
        return OutgoingDataFrame(
            bytes: bytes, number: transmission.number, transfer: transmission.transfer,
            final: transmission.range.upperBound == entry.header.streamLength
                && !fullySent.contains(transmission.number)
                ? FinalFrame(number: transmission.number, transfer: transmission.transfer, mtu: mtu, carrier: carrier)
                : nil,
            recipients: transmission.recipients)
    }

    /// The message's last byte went out (`frame`): what its `sent` says (once; nil after).
    public mutating func sent(_ frame: FinalFrame) -> OutgoingMessage? {
        guard let entry = streams[frame.number], fullySent.insert(frame.number).inserted else { return nil }
        let perFrame = Self.dataPerFrame(frame.mtu, frame.carrier)
        return OutgoingMessage(
            number: frame.number, id: Int(frame.transfer.value), kind: entry.message.kind,
            length: Int(entry.header.length), sha256: entry.sha256,
            frames: (entry.header.streamLength + perFrame - 1) / perFrame, mtu: frame.mtu, protocolVersion: 2)
    }

    /// Stream bytes a data frame carries at `mtu` on `carrier`.
    static func dataPerFrame(_ mtu: MTU, _ carrier: ValueCarrier) -> Int {
        mtu.sendValueLength(carrier) - DataFrame.headerLength
    }

    /// A message that failed before the sender had it (it waited for a handshake that did not come).
    public mutating func countFailure() {
        failed += 1
    }

    /// Does the delivery's own part of the sender's `actions` (aborts queued for the session
    /// `session` names, finished messages' bytes let go, failures counted) and returns the rest;
    /// `name` says how events name each recipient.
    public mutating func absorb(
        _ actions: [TransferSender<Recipient>.Action], name: (Recipient) -> PeerName,
        session: (Recipient) -> SessionNumber?
    ) -> [OutboundOutcome<Recipient>] {
        var outcomes: [OutboundOutcome<Recipient>] = []
        for action in actions {
            switch action {
            case .delivered(let number, let recipient, let seconds):
                if let summary = summary(number) {
                    outcomes.append(.report(.delivered(summary, to: name(recipient), seconds: seconds)))
                }
                outcomes.append(.settled(number: number, to: recipient, delivered: true))
            case .failed(let number, let recipient, let failure):
                if let summary = summary(number) {
                    outcomes.append(.report(.failed(summary, to: name(recipient), failure)))
                }
                failed += 1
                outcomes.append(.settled(number: number, to: recipient, delivered: false))
            case .resumed(let number, let recipient, let offset, let total):
                outcomes.append(.report(.resumed(id: number, offset: offset, total: total, to: name(recipient))))
            case .progress(let number, let bytes, let total, let rate):
                let fileName = streams[number].flatMap {
                    $0.message.name.isEmpty ? nil : String(decoding: $0.message.name, as: UTF8.self)
                }
                outcomes.append(
                    .report(
                        .progress(
                            id: number, direction: .outgoing, bytes: bytes, total: total, rate: rate, name: fileName)))
            case .abort(let recipient, let transfer, let reason):
                if let number = session(recipient) {
                    control.append(.abort(Abort(reason: reason, session: number, transfer: transfer)))
                }
            case .finished(let number):
                streams.remove(number)
                fullySent.remove(number)
            case .breach(let recipient, let breach):
                outcomes.append(.breach(by: recipient, breach))
            }
        }
        return outcomes
    }

    private func summary(_ number: Int) -> SentMessageSummary? {
        streams[number].map { SentMessageSummary(id: number, length: Int($0.header.length), sha256: $0.sha256) }
    }
}
