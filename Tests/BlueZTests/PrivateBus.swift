import Foundation
import XCTest

@testable import Shared

/// A private `dbus-daemon` (permissive policy, unix socket in a temporary directory) with
/// `bluezoo` providing `org.bluez` on it. Started and stopped by the tests.
final class PrivateBus {
    let directory: URL
    let address: String
    private let daemon: Process
    private var bluezoo: Process?
    private let bluezooPath: String

    /// The repository root (three levels above this file).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The bluezoo executable, made by `scripts/python-env.sh`; skips the test if that cannot run.
    static func bluezooExecutable() throws -> String {
        let script = repository.appendingPathComponent("scripts/python-env.sh").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { throw XCTSkip("cannot run scripts/python-env.sh: \(error)") }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let python = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let bluezoo = URL(fileURLWithPath: python).deletingLastPathComponent().appendingPathComponent("bluezoo").path
        guard process.terminationStatus == 0, FileManager.default.isExecutableFile(atPath: bluezoo) else {
            throw XCTSkip("scripts/python-env.sh failed (status \(process.terminationStatus)); bluezoo tests skipped")
        }
        return bluezoo
    }

    init() throws {
        bluezooPath = try Self.bluezooExecutable()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("relay-bluez-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let socket = directory.appendingPathComponent("bus").path
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(socket)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <allow own="*"/>
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
              </policy>
            </busconfig>
            """
        let configURL = directory.appendingPathComponent("bus.conf")
        try config.write(to: configURL, atomically: true, encoding: .utf8)
        daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--config-file=\(configURL.path)", "--nofork", "--print-address=1"]
        let output = Pipe()
        daemon.standardOutput = output
        try daemon.run()
        // The daemon prints its address once it listens.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        address = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !address.isEmpty else { throw XCTSkip("dbus-daemon did not start") }
    }

    /// Starts bluezoo with two LE adapters that see each other.
    func startBluezoo(adapters: [String] = ["00:00:00:11:11:11", "00:00:00:22:22:22"]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: bluezooPath)
        process.arguments = ["--auto-enable", "--scan-interval", "1", "-v"] + adapters.flatMap { ["-a", $0] }
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        process.environment = environment
        let log = directory.appendingPathComponent("bluezoo.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        bluezoo = process
    }

    /// Stops bluezoo (as if bluetoothd stopped).
    func stopBluezoo() {
        guard let bluezoo, bluezoo.isRunning else { return }
        bluezoo.terminate()
        bluezoo.waitUntilExit()
        self.bluezoo = nil
    }

    /// A new connection to the private bus.
    func connect(_ loop: EventLoop) throws -> DBusConnection {
        try DBusConnection(bus: .address(address), loop: loop)
    }

    deinit {
        stopBluezoo()
        if daemon.isRunning {
            daemon.terminate()
            daemon.waitUntilExit()
        }
        if ProcessInfo.processInfo.environment["RELAY_KEEP_BUS"] == nil { try? FileManager.default.removeItem(at: directory) }
    }
}
