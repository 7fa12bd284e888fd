// A private dbus-daemon with bluezoo, as in CentralTests/PrivateBluezBus.swift (test targets cannot share files).
import Foundation
import XCTest

import Shared

/// A private `dbus-daemon` with `bluezoo` (a BlueZ D-Bus mock with two linked LE adapters)
/// providing `org.bluez`; started and stopped by the integration tests.
final class PeripheralPrivateBus {
    let directory: URL
    let address: String
    private let daemon: Process
    private var bluezoo: Process?

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The bluezoo executable from `scripts/python-env.sh`; skips the test when it cannot be had.
    static func bluezooExecutable() throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [repository.appendingPathComponent("scripts/python-env.sh").path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { throw XCTSkip("cannot run scripts/python-env.sh: \(error)") }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let python = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let bluezoo = URL(fileURLWithPath: python).deletingLastPathComponent().appendingPathComponent("bluezoo").path
        guard process.terminationStatus == 0, FileManager.default.isExecutableFile(atPath: bluezoo) else {
            throw XCTSkip("scripts/python-env.sh failed; bluezoo tests skipped")
        }
        return bluezoo
    }

    init(adapters: [String]) throws {
        let bluezooPath = try Self.bluezooExecutable()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("relay-peripheral-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = """
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
            """
        let configURL = directory.appendingPathComponent("bus.conf")
        try config.write(to: configURL, atomically: true, encoding: .utf8)
        daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--config-file=\(configURL.path)", "--nofork", "--print-address=1"]
        let output = Pipe()
        daemon.standardOutput = output
        try daemon.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        address = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !address.isEmpty else { throw XCTSkip("dbus-daemon did not start") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: bluezooPath)
        process.arguments = ["--auto-enable", "--scan-interval", "1"] + adapters.flatMap { ["-a", $0] }
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        process.environment = environment
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        bluezoo = process
        try waitUntilServing()
    }

    /// Waits until bluezoo answers `GetManagedObjects`, so clients start against a complete service.
    private func waitUntilServing() throws {
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
        throw XCTSkip("bluezoo did not start serving org.bluez")
    }

    deinit {
        if let bluezoo, bluezoo.isRunning {
            bluezoo.terminate()
            bluezoo.waitUntilExit()
        }
        if daemon.isRunning {
            daemon.terminate()
            daemon.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
