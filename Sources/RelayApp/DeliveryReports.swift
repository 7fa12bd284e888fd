import RelayCLI
import RelayEndpoint
import RelayProtocol

/// What a version-2 outcome asks a program to do, after `InboundReports` or `OutboundReports`
/// translated it: the same for both programs.
public enum DeliveryOutcome<Recipient: Equatable & Sendable>: Equatable, Sendable {
    /// Print this event.
    case report(TransferEvent)
    /// Hand this complete message to the user (saved first with `--save-dir`).
    case deliver(MessageArrival)
    /// Do this on disk for a file on its way in (`--save-dir`).
    case file(IncomingFileStep)
    /// Send this acknowledgement to the sender.
    case acknowledge(Acknowledgement)
    /// Send an abort for `transfer` to `recipient`.
    case abort(to: Recipient, transfer: TransferID, reason: AbortReason)
    /// Message `handle` is done for everyone: its bytes can go.
    case release(handle: Int)
    /// Message `handle` reached its end for `recipient`: delivered, or not.
    case settled(handle: Int, to: Recipient, delivered: Bool)
    /// `recipient` broke protocol 2: cut it off.
    case breach(by: Recipient, ProtocolBreach)
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
    private var refusedFiles: Set<TransferID> = []

    public init() {}

    /// The outcomes of `actions` from the receiver of `from`'s messages. With a `--save-dir`, a
    /// file's bytes go to its part file as they come (`file` outcomes).
    public mutating func translate(
        _ actions: [TransferReceiver.Action], from: PeerName, arrivals: inout MessageArrivals, at now: Double
    ) -> [DeliveryOutcome<PeerName>] {
        var outcomes: [DeliveryOutcome<PeerName>] = []
        let directory = arrivals.saveDirectory
        for action in actions {
            switch action {
            case .acknowledge(let ack):
                outcomes.append(.acknowledge(ack))
            case .started(let transfer, let header):
                starts[transfer] = (now, 0)
                names[transfer] = header.name.isEmpty ? nil : String(decoding: header.name, as: UTF8.self)
                if !header.name.isEmpty, let directory {
                    if arrivals.admitSave(from: from, at: now) {
                        let key = IncomingFileKey(from: from, transfer: transfer)
                        fileKeys[transfer] = key
                        outcomes.append(.file(.open(key, directory: directory, name: ReceivedFileName(header.name))))
                    } else {
                        refusedFiles.insert(transfer)
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
                let refused = refusedFiles.contains(transfer)
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

    private mutating func forget(_ transfer: TransferID) {
        starts[transfer] = nil
        names[transfer] = nil
        fileKeys[transfer] = nil
        refusedFiles.remove(transfer)
    }

    /// A session frame from `from` that could not be parsed, reported unless too many came this second.
    public mutating func protocolError(_ error: SessionFrameError, from: PeerName, at now: Double) -> TransferEvent? {
        guard case .allow(let suppressed) = errorReports.admit(now: now) else { return nil }
        return .protocolError(from: from, .session(error), suppressedBefore: suppressed)
    }
}

/// A version-2 sender's actions as both programs report them.
public enum OutboundReports {
    /// The outcomes of `actions`; `streams` knows each message, `name` each recipient.
    public static func translate<Recipient>(
        _ actions: [TransferSender<Recipient>.Action], streams: OutgoingStreams, name: (Recipient) -> PeerName
    ) -> [DeliveryOutcome<Recipient>] {
        var outcomes: [DeliveryOutcome<Recipient>] = []
        for action in actions {
            switch action {
            case .delivered(let handle, let recipient, let seconds):
                if let summary = summary(handle, streams) {
                    outcomes.append(.report(.delivered(summary, to: name(recipient), seconds: seconds)))
                }
                outcomes.append(.settled(handle: handle, to: recipient, delivered: true))
            case .failed(let handle, let recipient, let failure):
                if let summary = summary(handle, streams) {
                    outcomes.append(.report(.failed(summary, to: name(recipient), failure)))
                }
                outcomes.append(.settled(handle: handle, to: recipient, delivered: false))
            case .resumed(let handle, let recipient, let offset, let total):
                outcomes.append(.report(.resumed(id: handle, offset: offset, total: total, to: name(recipient))))
            case .progress(let handle, let bytes, let total, let rate):
                let name = streams[handle].flatMap {
                    $0.message.name.isEmpty ? nil : String(decoding: $0.message.name, as: UTF8.self)
                }
                outcomes.append(
                    .report(
                        .progress(
                            id: handle, direction: .outgoing, bytes: bytes, total: total, rate: rate, name: name)))
            case .abort(let recipient, let transfer, let reason):
                outcomes.append(.abort(to: recipient, transfer: transfer, reason: reason))
            case .finished(let handle):
                outcomes.append(.release(handle: handle))
            case .breach(let recipient, let breach):
                outcomes.append(.breach(by: recipient, breach))
            }
        }
        return outcomes
    }

    private static func summary(_ handle: Int, _ streams: OutgoingStreams) -> SentMessageSummary? {
        streams[handle].map {
            SentMessageSummary(id: handle, length: Int($0.header.length), sha256: $0.sha256)
        }
    }
}
