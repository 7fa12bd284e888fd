import Foundation
import RelayDBus
import RelayRuntime
import XCTest

/// A private `dbus-daemon` for integration tests: a session-type bus with a permissive
/// policy, listening on a Unix socket in a temporary directory, optionally with `bluezoo`
/// (a BlueZ D-Bus mock with linked virtual LE adapters) providing `org.bluez` on it.
///
/// Started by a test; stopped by `stop()` or when released. Set `RELAY_KEEP_BUS=1` to keep
/// the directory (bus configuration, `bluezoo.log`) for a post-mortem.
public final class PrivateBus {
    /// The temporary directory holding the socket, the configuration and logs.
    public let directory: URL
    /// The bus address, for `DBusConnection(bus: .address(_))` or `DBUS_SYSTEM_BUS_ADDRESS`.
    public let address: String
    private let daemon: Process
    private var bluezoo: Process?

    /// The default pair of bluezoo adapters.
    public static let defaultAdapters = ["00:00:00:11:11:11", "00:00:00:22:22:22"]

    /// The repository root (two levels above this file).
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Starts the daemon and waits until it listens.
    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("relay-bus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("bus.conf")
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(directory.appendingPathComponent("bus").path)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <allow own="*"/>
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
          </policy>
        </busconfig>
        """.write(to: config, atomically: true, encoding: .utf8)

        daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--config-file=\(config.path)", "--nofork", "--print-address=1"]
        let output = Pipe()
        daemon.standardOutput = output
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        // dbus-daemon prints its address once it listens.
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let line = text.split(separator: "\n").first.map(String.init) ?? ""
        guard line.hasPrefix("unix:") else {
            daemon.terminate()
            throw DBusError.connectionFailed("dbus-daemon did not start: '\(text)'")
        }
        address = line
    }

    /// Starts the daemon, then bluezoo with `adapters`, and waits until bluezoo serves `org.bluez`.
    public convenience init(bluezooAdapters adapters: [String]) throws {
        try self.init()
        try startBluezoo(adapters: adapters)
    }

    deinit { stop() }

    /// Stops bluezoo and the daemon (every connection on it is disconnected) and removes the directory.
    public func stop() {
        stopBluezoo()
        if daemon.isRunning {
            daemon.terminate()
            daemon.waitUntilExit()
        }
        if ProcessInfo.processInfo.environment["RELAY_KEEP_BUS"] == nil {
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// A new connection to this bus on `loop`.
    public func connect(_ loop: EventLoop) throws -> DBusConnection {
        try DBusConnection(bus: .address(address), loop: loop)
    }

    /// Whether a missing bluezoo fails the test instead of skipping it (`RELAY_REQUIRE_BLUEZOO=1`,
    /// which `make test` sets: in CI a bluezoo that cannot start is a failure, not a skip).
    static var bluezooRequired: Bool { ProcessInfo.processInfo.environment["RELAY_REQUIRE_BLUEZOO"] == "1" }

    /// Skips the test for `reason`, or fails it when bluezoo is required.
    private static func unavailable(_ reason: String) -> any Error {
        bluezooRequired ? BluezooUnavailable(reason: reason) : XCTSkip(reason)
    }

    /// bluezoo could not be had although `RELAY_REQUIRE_BLUEZOO=1`.
    struct BluezooUnavailable: Error, CustomStringConvertible {
        let reason: String
        var description: String { "bluezoo is required (RELAY_REQUIRE_BLUEZOO=1) but \(reason)" }
    }

    /// The bluezoo executable from `scripts/python-env.sh`; skips the test when it cannot be had
    /// (fails it when bluezoo is required).
    public static func bluezooExecutable() throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [repository.appendingPathComponent("scripts/python-env.sh").path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { throw unavailable("cannot run scripts/python-env.sh: \(error)") }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let python = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let bluezoo = URL(fileURLWithPath: python).deletingLastPathComponent().appendingPathComponent("bluezoo").path
        guard process.terminationStatus == 0, FileManager.default.isExecutableFile(atPath: bluezoo) else {
            throw unavailable("scripts/python-env.sh failed; bluezoo tests skipped")
        }
        return bluezoo
    }

    /// Starts bluezoo with LE adapters that see each other (logging to `bluezoo.log`) and
    /// waits until it answers `GetManagedObjects`, so clients start against a complete service.
    /// `busy` (e.g. `start=1,stop=2`): the first calls of StartDiscovery and StopDiscovery are
    /// answered `InProgress`, as bluetoothd does while the kernel is busy (`busy_bluezoo.py`).
    public func startBluezoo(adapters: [String] = PrivateBus.defaultAdapters, busy: String? = nil) throws {
        let process = Process()
        let bluezoo = try Self.bluezooExecutable()
        let options = ["--auto-enable", "--scan-interval", "1", "-v"] + adapters.flatMap { ["-a", $0] }
        var environment = ProcessInfo.processInfo.environment
        if let busy {
            let python = URL(fileURLWithPath: bluezoo).deletingLastPathComponent().appendingPathComponent("python3")
            process.executableURL = python
            process.arguments = [Self.repository.appendingPathComponent("Tests/Support/busy_bluezoo.py").path] + options
            environment["RELAY_BLUEZOO_BUSY"] = busy
        } else {
            process.executableURL = URL(fileURLWithPath: bluezoo)
            process.arguments = options
        }
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        process.environment = environment
        let log = directory.appendingPathComponent("bluezoo.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        self.bluezoo = process
        try waitUntilBluezooServes()
    }

    /// Stops bluezoo (as if bluetoothd stopped).
    public func stopBluezoo() {
        guard let bluezoo, bluezoo.isRunning else { return }
        bluezoo.terminate()
        bluezoo.waitUntilExit()
        self.bluezoo = nil
    }

    private func waitUntilBluezooServes() throws {
        for _ in 0..<300 {
            let probe = Process()
            probe.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-send")
            probe.arguments = [
                "--bus=\(address)", "--print-reply", "--dest=org.bluez", "/",
                "org.freedesktop.DBus.ObjectManager.GetManagedObjects",
            ]
            probe.standardOutput = FileHandle.nullDevice
            probe.standardError = FileHandle.nullDevice
            try probe.run()
            probe.waitUntilExit()
            if probe.terminationStatus == 0 { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw Self.unavailable("bluezoo did not start serving org.bluez")
    }
}
