import RelayCLI
import RelayEndpoint
import RelayProtocol

/// What the receiving half of protocol 2 asks a program to do, after `InboundReports` translated
/// a receiver's actions: the same for both programs.
public enum InboundOutcome: Equatable, Sendable {
    /// Print this event.
    case report(TransferEvent)
    /// Hand this complete message to the user (saved first with `--save-dir`).
    case deliver(MessageArrival)
    /// Do this on disk for a file on its way in (`--save-dir`).
    case file(IncomingFileStep)
    /// Send this acknowledgement to the sender.
    case acknowledge(Acknowledgement)
}

/// The actions a program performs for what it receives: both programs' action types conform, so
/// that `InboundReports.actions(for:...)` makes them once for both.
public protocol ReceivingActions {
    /// Print a transfer event.
    static func transfer(_ event: TransferEvent) -> Self
    /// Save (with `--save-dir`) and report a complete message.
    static func deliver(_ arrival: MessageArrival) -> Self
    /// Open, extend or remove a file's part file.
    static func file(_ step: IncomingFileStep) -> Self
}

/// One sender's version-2 inbound side as both programs report it: the receiver's actions become
/// events (paced like version 1: at most 5 `receiving`, 5 `dropped` and 5 protocol errors a
/// second) and arrivals.
public struct InboundReports: Sendable {
    private var receivingReports = RateLimiter(limit: InboundPipeline.reportsPerSecond, per: 1)
    private var errorReports = RateLimiter(limit: InboundPipeline.reportsPerSecond, per: 1)
    private var droppedReports = RateLimiter(limit: InboundPipeline.reportsPerSecond, per: 1)
    /// When each message in progress was first heard of here, and how much of it was held then: its
    /// `progress` rate is what came since (a resumed message counts from the resume).
    private var starts: [TransferID: (time: Double, bytes: Int)] = [:]
    /// The file name of each message in progress that carries one (for `progress`).
    private var names: [TransferID: String] = [:]
    /// The part file of each file in progress, named when its header came (the sender's name
    /// for it may change later: a resume from another address, a new peer's welcome).
    private var fileKeys: [TransferID: IncomingFileKey] = [:]
    /// Files not saved because their sender is over `MessageArrivals.savesPerMinute`.
    private var refusedFiles: [TransferID: String] = [:]

    public init() {}

    /// The outcomes of `actions` from the receiver of `from`'s messages. With a `--save-dir`, a
    /// file's bytes go to its part file as they come (`file` outcomes).
    public mutating func translate(
        _ actions: [TransferReceiver.Action], from: PeerName, arrivals: inout MessageArrivals, at now: Double
    ) -> [InboundOutcome] {
        var outcomes: [InboundOutcome] = []
        let directory = arrivals.saveDirectory
        for action in actions {
            switch action {
            case .acknowledge(let ack):
                outcomes.append(.acknowledge(ack))
            case .started(let transfer, let header):
                starts[transfer] = (now, 0)
                names[transfer] = header.name.isEmpty ? nil : String(decoding: header.name, as: UTF8.self)
                if !header.name.isEmpty, let directory {
                    if let refusal = arrivals.saveRefusal(from: from, at: now) {
                        refusedFiles[transfer] = refusal
                    } else {
                        let key = IncomingFileKey(from: from, transfer: transfer)
                        fileKeys[transfer] = key
                        outcomes.append(.file(.open(key, directory: directory, name: ReceivedFileName(header.name))))
                    }
                }
                guard case .allow = receivingReports.admit(now: now) else { continue }
                let partial = PartialMessageReport(
                    id: Int(transfer.value), kind: header.kind, received: 0, total: Int(header.length))
                outcomes.append(.report(.receiving(from: from, partial)))
            case .progress(let transfer, let received, let total):
                let start = starts[transfer] ?? (now, received)
                starts[transfer] = start
                let elapsed = now - start.time
                let rate = elapsed > 0 ? Double(received - start.bytes) / elapsed : 0
                outcomes.append(
                    .report(
                        .progress(
                            id: Int(transfer.value), direction: .incoming, bytes: received, total: total, rate: rate,
                            name: names[transfer], peer: from)))
            case .write(let transfer, let bytes):
                if let key = fileKeys[transfer] { outcomes.append(.file(.append(key, bytes))) }
            case .deliver(let transfer, _, let message):
                forget(transfer)
                outcomes.append(
                    .deliver(arrivals.next(message, id: Int(transfer.value), from: from, transfer: transfer, at: now)))
            case .deliverFile(let transfer, let header, let sha256):
                let key = fileKeys[transfer] ?? IncomingFileKey(from: from, transfer: transfer)
                let refused = refusedFiles[transfer]
                forget(transfer)
                outcomes.append(
                    .deliver(arrivals.nextFile(key, header: header, sha256: sha256, from: from, refused: refused)))
            case .dropped(let dropped):
                if let key = fileKeys[dropped.transfer] { outcomes.append(.file(.discard(key))) }
                forget(dropped.transfer)
                // A peer refusing itself one message after another (a bad header a frame) is not
                // a line a frame.
                guard case .allow = droppedReports.admit(now: now) else { continue }
                let partial = PartialMessageReport(
                    id: Int(dropped.transfer.value), kind: dropped.header?.kind, received: dropped.received,
                    total: dropped.header.map { Int($0.length) })
                outcomes.append(.report(.dropped(from: from, partial, .transfer(dropped.cause))))
            }
        }
        return outcomes
    }

    /// The program's actions for a receiver's `actions` (see `translate`); its acknowledgements
    /// go to `control`, to be sent before any data.
    public mutating func actions<Action: ReceivingActions>(
        for actions: [TransferReceiver.Action], from: PeerName, arrivals: inout MessageArrivals,
        acknowledgingOn control: inout ControlFrames, at now: Double
    ) -> [Action] {
        var result: [Action] = []
        for outcome in translate(actions, from: from, arrivals: &arrivals, at: now) {
            switch outcome {
            case .report(let event): result.append(.transfer(event))
            case .deliver(let arrival): result.append(.deliver(arrival))
            case .file(let step): result.append(.file(step))
            case .acknowledge(let ack): control.append(.acknowledgement(ack))
            }
        }
        return result
    }

    private mutating func forget(_ transfer: TransferID) {
        starts[transfer] = nil
        names[transfer] = nil
        fileKeys[transfer] = nil
        refusedFiles[transfer] = nil
    }

    /// A session frame from `from` that could not be parsed, reported unless too many came this second.
    public mutating func protocolError(_ error: SessionFrameError, from: PeerName, at now: Double) -> TransferEvent? {
        guard case .allow(let suppressed) = errorReports.admit(now: now) else { return nil }
        return .protocolError(from: from, .session(error), suppressedBefore: suppressed)
    }
}
