import RelayEndpoint
import RelayProtocol

/// How a program delivers with protocol version 2, from the common options: the same for both.
public struct DeliverySettings: Equatable, Sendable {
    /// 2, or 1 (`--protocol 1`: never offer or use the session characteristic).
    public var protocolVersion = 2
    /// This process's token (random, picked once at start-up).
    public var token: SessionToken
    public var window = CommonOptions.defaultWindow
    public var flight = 0.5
    public var resumeTimeout = 60.0
    public var deliveryTimeout = 120.0
    public var maxMessage = CommonOptions.defaultMaxMessage
    public var maxFile = CommonOptions.defaultMaxFile
    /// Every message is saved (`--save-dir`): a message is acknowledged `delivered` only once it
    /// is saved, and `notSaved` when that failed.
    public var savesMessages = false

    /// Settings with a fixed token (tests), else the defaults.
    public init(token: SessionToken = SessionToken(1)!) {
        self.token = token
    }

    /// The settings of `options`, with a fresh random token.
    public init(options: CommonOptions) {
        var generator = SystemRandomNumberGenerator()
        token = SessionToken.random(using: &generator)
        protocolVersion = options.protocolVersion
        window = options.window
        flight = options.flight
        resumeTimeout = options.resumeTimeout
        deliveryTimeout = options.deliveryTimeout
        maxMessage = options.maxMessage
        maxFile = options.maxFile
        savesMessages = options.saveDirectory != nil
    }

    /// The most messages a program holds on their way at once (each `send-file` keeps its file
    /// open until every recipient is done with it): a `send` beyond is refused. relay-central's
    /// REPL waits for each `send` to be delivered, so only relay-peripheral can reach it.
    public static let maximumMessagesOnTheirWay = 256

    /// The refusal of a `send` while `maximumMessagesOnTheirWay` are on their way.
    public static var queueFullReason: String {
        "\(maximumMessagesOnTheirWay) messages are still on their way: wait for some to be delivered (status shows them)"
    }

    /// Whether version 2 is spoken at all.
    public var speaksVersion2: Bool { protocolVersion >= 2 }

    public var senderConfiguration: TransferSenderConfiguration {
        TransferSenderConfiguration(
            window: window, queueTarget: flight, deliveryTimeout: deliveryTimeout, resumeTimeout: resumeTimeout)
    }

    public var receiverConfiguration: TransferReceiver.Configuration {
        TransferReceiver.Configuration(
            window: window, maxMessage: maxMessage, maxFile: maxFile, resumeTimeout: resumeTimeout,
            stallTimeout: deliveryTimeout, acknowledgesAfterSaving: savesMessages)
    }
}
