import RelayApp
import RelayBlueZ
import RelayProtocol

/// The settings of relay-central's session, taken from the command line.
struct CentralSettings: Equatable, Sendable {
    /// The advertised name of candidates; nil: any name (`--nus` without `--name`).
    var name: String? = "sample"
    /// `--nus`: links are to Nordic UART Service devices (`connect --nus` asks for one link).
    var uart = false
    /// `--nus-eol`: appended to the text sent to a UART device.
    var uartEnding = UARTLineEnding.lf
    var scanTimeout = CentralOptions.defaultScanTimeout
    var reconnect = false
    var maxMessage = CommonOptions.defaultMaxMessage
    var saveDirectory: String?
    var startupTarget: StartupTarget?
    /// `.writeValue`: never ask for the `AcquireWrite` socket.
    var writePath = WritePath.socket
    /// `.socket`: subscribe with `AcquireNotify` (falling back to `StartNotify`); `.signal`: `StartNotify` only.
    var notifyPath = NotifyPath.signal
    /// Protocol version 2: token, window, time-outs.
    var delivery = DeliverySettings()
    /// `--trace` (nil: off).
    var trace: TraceReports?
    /// Pause before a reconnect scan is retried after a failed attempt, in seconds.
    var retryDelay = 1.0
    /// How long a `Device1.Connect` may take before it is cancelled (seconds). Shorter than the
    /// kernel's own 40 s LE connection time-out, so the cancel comes from us, and is answered.
    var connectTimeout = 20.0
    /// After a `Disconnect` we asked for was answered, how long to wait for `Connected` to turn
    /// false before connecting again anyway (seconds).
    var disconnectSettle = 5.0
    /// After a relay characteristic vanished, how long to wait for `Connected` to turn false
    /// before taking it as the relay service gone under a live link (seconds).
    var vanishSettle = 1.0
    /// `--lane`: whether protocol 2 may travel on an L2CAP channel (never with `--protocol 1`).
    var lane = LaneChoice.auto
    /// How long opening the channel may take (seconds).
    var laneOpenTimeout = 5.0

    init() {}

    init(options: CentralOptions) {
        uart = options.uart
        name = options.name ?? (options.uart ? nil : "sample")
        uartEnding = options.common.uartEnding
        scanTimeout = options.scanTimeout
        reconnect = options.reconnect
        maxMessage = options.common.maxMessage
        saveDirectory = options.common.saveDirectory
        startupTarget = options.connect
        writePath = options.writePath
        notifyPath = options.common.notifyPath
        delivery = DeliverySettings(options: options.common)
        trace = options.common.traceReports
        lane = delivery.speaksVersion2 ? options.common.lane : .gatt
    }
}
