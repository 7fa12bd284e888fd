import RelayApp
import RelayEndpoint
import RelayProtocol

/// The value being written (one at a time) and what it completes.
enum InFlightWrite {
    /// A counter or a version-1 frame from the outbox.
    case outbox(Outbox<CentralWait>.Value)
    /// A hello, acknowledgement or abort.
    case control
    /// A version-2 data frame; `final` when it carries a message's last byte the first time.
    case data(final: FinalFrame?)
    /// Text for a UART device's RX.
    case uart(CentralUART.Value)
}

/// relay-central's writes: one value at a time (the handshake's and acknowledgements' frames
/// first, then counters and version-1 frames, then version-2 data) on its carrier, the counter,
/// the numbers of messages. Part of `CentralSession` (see `CentralSession+Transfer`).
struct CentralWriting {
    /// Counters and version-1 frames to write, each with what its command waits for.
    var outbox = Outbox<CentralWait>()
    /// The value being written (one at a time).
    private(set) var inFlight: InFlightWrite?
    /// The value in flight as it was handed to its carrier.
    private(set) var carried: CarriedValue?
    /// The carrier's socket was full: `carried` goes again once it can take more.
    private var waitingForRoom = false
    var chunker = Chunker(carrier: .write)
    /// The counter `write` writes next.
    var nextCounter = Counter(0)
    var messagesSent = 0
    /// `write` commands so far (each counter's command waits for `.counter(n)`).
    private var writes = 0
    /// The number the next message gets (from 1; `id` in the sender's events).
    var nextMessageNumber = 1

    /// What the next `write` command waits for.
    mutating func nextWrite() -> CentralWait {
        writes += 1
        return .counter(writes)
    }

    /// Hands `value` to `carrier` as `write`: the one action that sends a value.
    mutating func send(_ value: [UInt8], on carrier: Carrier, as write: InFlightWrite) -> CentralAction {
        inFlight = write
        carried = CarriedValue(value: value, carrier: carrier)
        waitingForRoom = false
        return .send(value, on: carrier)
    }

    /// The value in flight has its outcome (or goes with the link): nothing is in flight now.
    /// Returns what was.
    mutating func finishInFlight() -> InFlightWrite? {
        let written = inFlight
        inFlight = nil
        carried = nil
        waitingForRoom = false
        return written
    }

    /// The carrier's socket did not take the value in flight: it waits for room.
    mutating func carrierFull() {
        guard carried != nil else { return }
        waitingForRoom = true
    }

    /// The value waiting for room, if any.
    var waiting: CarriedValue? { waitingForRoom ? carried : nil }

    /// `carrier` can take more: the value that waited for it, to send again (nil: none did).
    mutating func room(on carrier: Carrier) -> CarriedValue? {
        guard let waiting, waiting.carrier == carrier else { return nil }
        waitingForRoom = false
        return waiting
    }

    /// The link ended: the value in flight and everything queued go with it. Returns what each
    /// lost counter or version-1 message completes, with the frames of it taken (they count as
    /// sent: all of a message whose last frame was in flight, some of the one in front).
    mutating func linkEnded() -> [(item: Outbox<CentralWait>.Completion, framesTaken: Int)] {
        var lost: [(item: Outbox<CentralWait>.Completion, framesTaken: Int)] = []
        if case .outbox(let value)? = inFlight, let completion = value.completion {
            if case .message(let message, _) = completion {
                lost.append((completion, message.frames))
            } else {
                lost.append((completion, 0))
            }
        }
        let front = outbox.frontMessageProgress
        for (index, item) in outbox.removeAll().enumerated() {
            lost.append((item, index == 0 ? front?.taken ?? 0 : 0))
        }
        _ = finishInFlight()
        return lost
    }

    /// The sockets closed: nothing waits for their room any more (the value in flight is still
    /// in flight until its failure is heard).
    mutating func forgetWaiting() {
        waitingForRoom = false
    }
}
