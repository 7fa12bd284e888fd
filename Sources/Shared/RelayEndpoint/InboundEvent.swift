import RelayProtocol

/// Why a partial message was given up. Typed here; the line is made once, in `description`.
public enum DropReason: Equatable, Sendable, CustomStringConvertible {
    /// A frame broke the message (the error that dropped it).
    case protocolError(ReassemblyError)
    /// The link to the sender ended; the text says how (from the program's link layer).
    case linkEnded(String)
    /// No frame came for `seconds`; `subscribed` tells whether the sender still listened.
    case stalled(seconds: Int, subscribed: Bool)
    /// A version-2 transfer ended without its message (`TransferReceiver`).
    case transfer(TransferReceiver.DropCause)

    public var description: String {
        switch self {
        case .protocolError(let error): return error.description
        case .linkEnded(let how): return how
        case .stalled(let seconds, let subscribed):
            return "stalled: no frame for \(seconds) s" + (subscribed ? "" : ", not subscribed")
        case .transfer(let cause): return cause.description
        }
    }
}

/// A value that broke the protocol: a version-1 frame or a version-2 session frame.
public enum ProtocolViolation: Equatable, Sendable, CustomStringConvertible {
    case frame(ReassemblyError)
    case session(SessionFrameError)

    public var description: String {
        switch self {
        case .frame(let error): error.description
        case .session(let error): error.description
        }
    }
}

/// What one sender's values become at the receiver (see `InboundPipeline`).
public enum InboundEvent: Equatable, Sendable {
    /// A counter (a 4-byte value).
    case counter(Counter)
    /// The first frame of a message that needs more than one arrived (at most 5 reported a second).
    case receiving(ReassemblyProgress)
    /// A complete message whose length and CRC-32C matched; `number` counts this sender's
    /// messages from 1.
    case message(Message, id: MessageID, number: Int)
    /// A value broke the protocol. Reported at most 5 times a second; `suppressedBefore` errors
    /// since the previous report were not reported.
    case protocolError(ReassemblyError, suppressedBefore: Int)
    /// A partial message was given up.
    case dropped(DroppedPartial, DropReason)
}
