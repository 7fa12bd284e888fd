import RelayApp
import RelayBlueZ
import RelayCLI
import RelayProtocol

/// The settings of relay-peripheral's session, taken from the command line.
struct PeripheralSettings: Equatable, Sendable {
    var name = AdvertisedName.default
    /// `--advertising-interval`.
    var advertisingInterval = AdvertisingInterval.relayDefault
    var maxMessage = CommonOptions.defaultMaxMessage
    var echo = false
    var saveDirectory: String?
    /// Protocol version 2: token, window, time-outs.
    var delivery = DeliverySettings()
    /// `--trace` (nil: off).
    var trace: TraceReports?
    /// The Nordic UART Service for phone apps, and the line ending of text sent there (nil: `--no-nus`).
    var uart: UARTLineEnding? = .lf
    /// `--allow`: the only centrals whose values are taken (nil: every central's).
    var allowedCentrals: Set<BluetoothAddress>?
    /// `--secure`: the values need a bonded, authenticated link; the agent shows passkeys.
    var secure = false
    /// `--lane`: whether protocol 2 may travel on L2CAP channels (never with `--protocol 1`).
    var lane = LaneChoice.auto

    init() {}

    init(options: PeripheralOptions) {
        name = options.name
        advertisingInterval = options.advertisingInterval
        maxMessage = options.common.maxMessage
        echo = options.echo
        saveDirectory = options.common.saveDirectory
        delivery = DeliverySettings(options: options.common)
        trace = options.common.traceReports
        uart = options.uart
        allowedCentrals = options.allowedCentrals
        secure = options.secure
        lane = delivery.speaksVersion2 ? options.common.lane : .gatt
    }
}
