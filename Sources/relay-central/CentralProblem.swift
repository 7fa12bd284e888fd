import RelayApp
import RelayBlueZ
import RelayProtocol

/// What a command for relay peripherals is refused on a link to a UART device.
enum UARTRefusal: Equatable, Sendable {
    /// `write`: counters need a relay peripheral.
    case counter
    case read
    /// `send-file`, or binary `send`: files and binary need a relay peripheral.
    case file(command: String)
}

/// One characteristic of a `read` that failed.
struct ReadFailure: Equatable, Sendable {
    var role: CharacteristicRole
    var error: BlueZError
}

/// Something that went wrong on relay-central, typed: a command refused or failed, or an
/// `error` event. Its line is made in `description`, the one place relay-central's error texts
/// are written (as `PeripheralProblem` is relay-peripheral's).
enum CentralProblem: Error, Equatable, Sendable, CustomStringConvertible {
    // MARK: Commands the state refuses

    /// The adapter is not powered on (or not there).
    case adapter(AdapterState)
    /// A command that needs a ready link, with no link.
    case notConnected
    /// A command that needs a ready link, while it is being set up.
    case stillConnecting
    /// A command that needs a ready link, while it is being left.
    case leavingLink
    case stillDisconnecting(Peer)
    case alreadyConnected(Peer)
    /// `scan` while connected.
    case scanWhileConnected(Peer)
    /// `connect N` with no candidate `N`.
    case noCandidate(index: Int, count: Int)
    /// `disconnect` with no link.
    case nothingToDisconnect
    case alreadyDisconnecting(Peer)
    case uartTextOnly(UARTRefusal)
    case messageTooLarge
    /// `send` while `DeliverySettings.maximumMessagesOnTheirWay` messages are on their way.
    case queueFull
    case readInProgress
    /// `send` of text that is empty once cut for a UART device.
    case nothingToSend
    case pairNotConnected
    case pairingInProgress
    case alreadyPaired(Peer)
    case noPasskeyRequested
    case notPaired(Peer?)
    case unpairInProgress

    // MARK: Commands overtaken by another

    case scanCancelledByConnect
    case scanStoppedBeforeStart
    case scanStoppedBeforeFound(SeekTarget)
    case connectCancelledByDisconnect

    // MARK: Scanning and connecting

    case scanFailed(BlueZError)
    /// A scan for `target` (a relay peripheral, or a UART device) found nothing within `seconds`.
    case nothingFound(MessageVia, SeekTarget, seconds: Int)
    /// Connecting to `peer` failed; an automatic connection is retried in `retryIn` seconds.
    case couldNotConnect(Peer, reason: String, retryIn: Double? = nil)
    /// The device does not offer what the link needs (the relay service, or the UART service).
    case notOurService(Peer, MessageVia, reason: String)
    case subscribeFailed(Peer, BlueZError)
    /// The peripheral requires pairing, and pairing failed.
    case pairingRequiredAndFailed(Peer, PairingFailure)
    case pairFailed(PairingFailure)
    case unpairFailed(BlueZError)

    // MARK: Counters, messages, reads

    case counterNotWritten(Counter, reason: String)
    case messageNotSent(number: Int, reason: String)
    /// A version-1 message whose frame `frame` of `frames` failed.
    case frameNotWritten(number: Int, frame: Int, of: Int, reason: String)
    /// Message `number` was cut off with the link after `taken` of `frames` frames.
    case messageCutOff(number: Int, reason: String, taken: Int, of: Int)
    case messageNotDelivered(number: Int)
    case readFailed([ReadFailure])
    case readInterrupted(reason: String)

    // MARK: Protocol 2 and files

    /// This link speaks protocol 1 from now on (`why` says what happened).
    case speakingVersion1(why: String)
    /// A received message or file could not be saved (the text says where and why).
    case saveFailed(String)

    var description: String {
        switch self {
        case .adapter(let state): return state.problemSentence ?? "the adapter went away"
        case .notConnected: return "not connected: scan, then connect N"
        case .stillConnecting: return "still connecting: wait ready, then retry"
        case .leavingLink: return "disconnecting: connect again first"
        case .stillDisconnecting(let peer): return "still disconnecting from \(peer): wait disconnected, then connect"
        case .alreadyConnected(let peer): return "already connected to \(peer): disconnect first"
        case .scanWhileConnected(let peer): return "connected to \(peer): disconnect first, then scan"
        case .noCandidate(let index, let count):
            let have = count == 0 ? "the list is empty" : "the list has 0 to \(count - 1)"
            return "no peripheral [\(index)]: \(have) (scan first, then list)"
        case .nothingToDisconnect: return "not connected"
        case .alreadyDisconnecting(let peer): return "already disconnecting from \(peer): wait disconnected"
        case .uartTextOnly(let refusal):
            let textOnly = "a UART device takes lines of text: use send TEXT"
            switch refusal {
            case .counter: return "write: \(textOnly) (counters need a relay peripheral)"
            case .read: return "read: \(textOnly)"
            case .file(let command): return "\(command): \(textOnly) (files and binary need a relay peripheral)"
            }
        case .messageTooLarge: return "message too large: a relay message is shorter than 4 GiB"
        case .queueFull: return DeliverySettings.queueFullReason
        case .readInProgress: return "a read is already in progress: wait for it"
        case .nothingToSend: return "send: nothing to send"
        case .pairNotConnected: return "pair: not connected: connect to the peripheral first"
        case .pairingInProgress: return "pair: a pairing is in progress: type the passkey the peripheral shows"
        case .alreadyPaired(let peer): return "pair: already paired with \(peer) (unpair forgets the bond)"
        case .noPasskeyRequested:
            return "passkey: no pairing is waiting for a passkey (a secure peripheral asks for one when you "
                + "connect; pair starts one by hand)"
        case .notPaired(let peer): return "unpair: not paired with \(peer.map(\.description) ?? "a peripheral")"
        case .unpairInProgress: return "unpair: already in progress"
        case .scanCancelledByConnect: return "scan cancelled by connect"
        case .scanStoppedBeforeStart: return "scan stopped before it started"
        case .scanStoppedBeforeFound(let target): return "scan stopped before \(target) was found"
        case .connectCancelledByDisconnect: return "connect cancelled by disconnect"
        case .scanFailed(let error): return "could not start scanning: \(error)"
        case .nothingFound(let via, let target, let seconds):
            return "nothing found: no \(via == .nus ? "UART device" : "relay peripheral") \(target) advertised "
                + "within \(seconds) s (is it on, in range and advertising?)"
        case .couldNotConnect(let peer, let reason, let retry):
            return "could not connect to \(peer): \(reason)" + (retry.map { "; retrying in \(Self.seconds($0))" } ?? "")
        case .notOurService(let peer, .nus, let reason):
            return "\(peer) is not a UART device: \(reason) (connect --nus needs the Nordic UART Service)"
        case .notOurService(let peer, _, let reason):
            return "\(peer) is not a relay peripheral: \(reason) (connect to a device running relay-peripheral)"
        case .subscribeFailed(let peer, let error): return "could not subscribe to \(peer)'s notifications: \(error)"
        case .pairingRequiredAndFailed(let peer, let failure):
            return "\(peer) requires pairing, and pairing failed (\(failure)): connect again to retry"
        case .pairFailed(let failure): return "pair: \(failure)"
        case .unpairFailed(let error): return "unpair: \(error)"
        case .counterNotWritten(let counter, let reason): return "counter \(counter) not written: \(reason)"
        case .messageNotSent(let number, let reason): return "message \(number) not sent: \(reason)"
        case .frameNotWritten(let number, let frame, let frames, let reason):
            return "message \(number) not sent: frame \(frame) of \(frames) failed: \(reason)"
        case .messageCutOff(let number, let reason, let taken, let frames):
            return "message \(number) not sent: \(reason) after \(taken) of \(frames) frames"
        case .messageNotDelivered(let number): return "message \(number) not delivered"
        case .readFailed(let failures):
            return failures.map { "reading the \($0.role.rawValue) characteristic failed: \($0.error)" }
                .joined(separator: "; ")
        case .readInterrupted(let reason): return "read interrupted: \(reason)"
        case .speakingVersion1(let why): return why
        case .saveFailed(let text): return text
        }
    }

    /// The cause and the fix of a failed `Connect`.
    static func connectReason(_ error: BlueZError, timeout: Double = CentralSettings().connectTimeout) -> String {
        switch error.kind {
        case .inProgress: return "a connection attempt is already in progress (InProgress): wait for it, then retry"
        case .failed where error.message.contains("already in progress"):
            return "a connection attempt is already in progress (\(error.message)): wait for it, then retry"
        case .noReply:
            return
                "no connection within \(CentralProblem.seconds(timeout)) (is it on, in range and advertising?); attempt cancelled"
        case .notReady: return "the adapter is not ready (NotReady): power it on (bluetoothctl power on)"
        case .unknownObject, .doesNotExist, .gone, .notAvailable:
            return "the device is gone: scan again and connect to it while it advertises"
        default: return error.description
        }
    }

    /// The cause and the fix of a failed write.
    static func writeReason(_ error: TransportError) -> String {
        switch error {
        case .closed: return "not connected: connect again"
        case .socketFailed, .fellBackToVersion1: return error.description
        case .bluez(let error):
            switch error.kind {
            case .invalidLength, .invalidValueLength, .invalidArguments:
                return "the value is too large for the link (\(error.name)): the MTU shrank? reconnect and retry"
            case .notConnected: return "not connected: connect again"
            case .inProgress: return "another write is in progress (InProgress): retry"
            case .notPermitted: return "the peripheral does not permit this write (NotPermitted)"
            default: return error.description
            }
        }
    }

    /// `2 s`, `0.5 s`.
    static func seconds(_ delay: Double) -> String {
        delay == delay.rounded() ? "\(Int(delay)) s" : "\(delay) s"
    }
}
