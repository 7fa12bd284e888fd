import RelayApp
import RelayBlueZ
import RelayEndpoint
import RelayProtocol

/// Why queued values were dropped before they were handed over.
enum SendAbandonReason: Equatable, Sendable, CustomStringConvertible {
    case lastSubscriberLeft
    case noSubscriber
    case bluetooth(AdapterState)
    case notifyFailed(PeripheralTransportError)

    var description: String {
        switch self {
        case .lastSubscriberLeft: return "the last subscribed central left"
        case .noSubscriber: return "no central is subscribed any more"
        case .bluetooth(let state): return "Bluetooth is \(state.phrase)"
        case .notifyFailed(let failure): return failure.description
        }
    }
}

/// Something that went wrong on relay-peripheral, typed: a command refused, or an `error`
/// event. Its line is made in `description`, the one place relay-peripheral's error texts are
/// written (as `CentralProblem` is relay-central's).
enum PeripheralProblem: Error, Equatable, Sendable, CustomStringConvertible {
    // MARK: Commands the state refuses

    /// `notify` or `send` while the adapter is not powered on (or not there).
    case adapter(AdapterState)
    /// `notify` or `send` before `start` registered the service.
    case notRegistered
    /// `notify` or `send` with nobody to hear it.
    case noSubscriber
    case messageTooLarge
    /// Too many messages on their way already.
    case queueFull
    /// `status CENTRAL` naming no connected central (`listed`: how many there are).
    case noSuchCentral(CentralChoice, listed: Int)

    // MARK: Events

    case registration(RegistrationFailure)
    /// Queued messages and counters were dropped.
    case notSent(messages: Int, counters: Int, SendAbandonReason)
    /// One value bluetoothd refused (`counter` nil: a message frame).
    case valueNotSent(counter: Counter?, PeripheralTransportError)
    /// Other bus clients called our objects; `suppressed` refusals were not reported.
    case refusedCall(RefusedCall, suppressed: Int)
    /// A received message could not be saved (the text says where and why).
    case saveFailed(String)
    /// A relay central said hello while every session number (254) was taken.
    case sessionsFull
    /// A hello carried the token of the session of the central at `owner` (another address):
    /// refused; `suppressed` more were not reported.
    case anotherCentralsToken(owner: BluetoothAddress, suppressed: Int)
    /// The central broke protocol 2 and is cut off from it until it connects again.
    case brokeProtocol(ProtocolBreach)
    /// A central outside `--allow` wrote a value, dropped; `suppressed` more were not reported.
    case notAllowed(suppressed: Int)
    /// `--secure`: bluetoothd refused the pairing agent (no passkey can be shown).
    case agent(BlueZError)
    /// Two links answer to the central's address: nothing from it is taken until both have gone.
    case addressContested(AddressClaim)

    var description: String {
        switch self {
        case .adapter(let state):
            return
                "Bluetooth is not powered on (\(state == .unknown ? "no adapter yet" : state.phrase)); nothing was sent"
        case .notRegistered: return "the GATT service is not registered: type start first"
        case .noSubscriber: return "no central is subscribed to notifications (wait for 'subscribed')"
        case .messageTooLarge: return "a message must be shorter than 4 GiB"
        case .noSuchCentral(.number(let number), let listed):
            return listed == 0
                ? "no central \(number): none is connected"
                : "no central \(number): status lists \(listed) (1-\(listed))"
        case .noSuchCentral(let choice, _): return "no central \(choice) is connected"
        case .queueFull: return DeliverySettings.queueFullReason
        case .registration(let failure): return failure.description
        case .notSent(let messages, let counters, let reason):
            var parts: [String] = []
            if messages > 0 { parts.append("\(messages) message\(messages == 1 ? "" : "s")") }
            if counters > 0 { parts.append("\(counters) counter\(counters == 1 ? "" : "s")") }
            return "\(parts.joined(separator: " and ")) not sent: \(reason)"
        case .valueNotSent(let counter, let failure):
            return "\(counter.map { "counter \($0)" } ?? "a message frame") not sent: \(failure)"
        case .refusedCall(let call, let suppressed):
            let more = suppressed > 0 ? " (\(suppressed) more refused since the last report)" : ""
            return "refused \(call.method) on \(call.path) from \(call.sender): only bluetoothd may call the "
                + "peripheral's objects\(more)"
        case .saveFailed(let text): return text
        case .sessionsFull: return "254 relay centrals are in session already: no session for this one"
        case .anotherCentralsToken(let owner, let suppressed):
            let more = suppressed > 0 ? " (\(suppressed) more refused since the last report)" : ""
            return "hello refused: it carries the token of \(owner)'s session (a session stays with its central)\(more)"
        case .brokeProtocol(let breach):
            return "cut off from protocol 2 and disconnected: \(breach) (its session ends, its messages fail)"
        case .notAllowed(let suppressed):
            let more = suppressed > 0 ? " (\(suppressed) more dropped since the last report)" : ""
            return "value dropped: this central is not in --allow\(more)"
        case .addressContested(let claim):
            let how =
                switch claim {
                case .pairedAs(let claimant):
                    "central \(claimant) paired giving this central's address as its own"
                case .secondLink: "an L2CAP channel with this central's address came on a second link"
                }
            return "\(how): nothing from either link is taken and both are disconnected "
                + "(a pairing proves no address; its session resumes when it connects alone)"
        case .agent(let error):
            return "cannot register the pairing agent: \(error) (--secure shows passkeys through it: "
                + "is another program the default agent, e.g. bluetoothctl?)"
        }
    }
}
