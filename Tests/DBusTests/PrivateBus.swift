import Foundation
import RelayDBus
import RelayRuntime
import XCTest

/// A private `dbus-daemon` (session-type configuration) listening on a Unix socket in a
/// temporary directory; started by a test and stopped by `stop()` or when released.
///
/// The bus allows everything (own any name, send anywhere) so tests can play every role.
final class PrivateBus {
    let directory: URL
    let address: String
    private let process: Process

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("relay-dbus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("bus.conf")
        let socket = directory.appendingPathComponent("bus").path
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """.write(to: config, atomically: true, encoding: .utf8)

        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--config-file=\(config.path)", "--nofork", "--print-address"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // dbus-daemon prints its address once it listens.
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let line = text.split(separator: "\n").first.map(String.init) ?? ""
        guard line.hasPrefix("unix:") else {
            process.terminate()
            throw DBusError.connectionFailed("dbus-daemon did not start: '\(text)'")
        }
        address = line
    }

    deinit { stop() }

    /// Stops the daemon (every connection on it is disconnected) and removes its directory.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// A new connection to this bus on `loop`.
    func connect(_ loop: EventLoop) throws -> DBusConnection {
        try DBusConnection(bus: .address(address), loop: loop)
    }
}

extension EventLoop {
    /// Starts an asynchronous operation and runs the loop until it completes (or a generous
    /// safety limit passes, which gives `nil`: a hang, not a timing assertion).
    func wait<T>(_ start: (@escaping (T) -> Void) -> Void) -> T? {
        var result: T?
        start { result = $0 }
        run(until: { result != nil }, timeout: 20)
        return result
    }

    /// Calls a method and waits for its result.
    func call(
        _ connection: DBusConnection, _ destination: String, _ path: ObjectPath, _ interface: String?,
        _ method: String, _ arguments: [DBusValue] = [], timeout: Double = 25
    ) -> Result<[DBusValue], DBusError>? {
        wait { done in
            connection.call(
                destination: destination, path: path, interface: interface, method: method, arguments: arguments,
                timeout: timeout, reply: done)
        }
    }
}

/// The remote error of a failed result, if any.
func remoteError(_ result: Result<[DBusValue], DBusError>?) -> DBusRemoteError? {
    if case .failure(.remote(let error)) = result { return error }
    return nil
}
