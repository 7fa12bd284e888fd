import RelayApp
import RelayBlueZ
import RelayCLI
import RelayProtocol
import RelayREPL
import RelayRuntime
import RelayTestSupport
import XCTest

@testable import relay_peripheral

/// A Bluetooth side that answers at once and plays a central that connects, subscribes and
/// writes counters 0, 1, 2 as soon as the advertisement is registered.
final class FakePeripheralBackend: PeripheralBackend {
    unowned let driver: PeripheralDriver
    let loop: EventLoop
    var notified: [[UInt8]] = []
    var calls: [String] = []
    private var centralScriptPlayed = false
    var notifyReadValue: [UInt8] = []
    var writeReadValue: [UInt8] = []
    /// Every `blockEvery`-th notify reports `.wouldBlock` (a full socket), when set.
    var blockEvery: Int?
    /// After a `.wouldBlock`, the central unsubscribes instead of the socket draining.
    var unsubscribeWhenFull = false
    var pacesItself: Bool { blockEvery != nil }
    private var attempts = 0
    var centralScript: [PeripheralInput] = [
        .connected(centralA), .notifyStarted(from: centralA, mtu: MTU(185)),
        .written(Counter(0).encoded, from: centralA, mtu: MTU(185)),
        .written(Counter(1).encoded, from: centralA, mtu: MTU(185)),
        .written(Counter(2).encoded, from: centralA, mtu: MTU(185)),
    ]

    init(driver: PeripheralDriver, loop: EventLoop) {
        self.driver = driver
        self.loop = loop
    }

    func registerApplication(_ ticket: RegistrationTicket) {
        calls.append("registerApplication")
        loop.post { self.driver.feed(.applicationRegistered(ticket)) }
    }
    func unregisterApplication() { calls.append("unregisterApplication") }
    func registerAdvertisement(_ ticket: RegistrationTicket, name: AdvertisedName, interval: AdvertisingInterval) {
        calls.append("registerAdvertisement \(name) every \(interval)")
        // The centrals play their script once, after the first registration (a central's
        // connection makes relay-peripheral register the advertisement again).
        let script = centralScriptPlayed ? [] : centralScript
        centralScriptPlayed = true
        loop.post {
            self.driver.feed(.advertisementRegistered(ticket))
            for (index, input) in script.enumerated() {
                self.loop.schedule(after: 0.01 * Double(index + 1)) { self.driver.feed(input) }
            }
        }
    }
    func unregisterAdvertisement() { calls.append("unregisterAdvertisement") }
    func renewAdvertisement(_ ticket: RegistrationTicket, name: AdvertisedName, interval: AdvertisingInterval) {
        calls.append("unregisterAdvertisement")
        registerAdvertisement(ticket, name: name, interval: interval)
    }
    func send(_ values: [[UInt8]], on carrier: PeripheralCarrier) {
        switch carrier {
        case .notification:
            driver.feed(.sendFinished(carrier, outcome(of: values[0])))
        case .lane(let lane):
            calls.append("sendOnLane \(lane)")
            driver.feed(.sendFinished(carrier, .took(values.count, full: false, paced: true)))
        }
    }
    private func outcome(of value: [UInt8]) -> PeripheralSendOutcome {
        attempts += 1
        if let blockEvery, attempts % blockEvery == 0 {
            if unsubscribeWhenFull {
                loop.post { self.driver.feed(.notifyStopped(from: centralA)) }
            } else {
                loop.schedule(after: 0.001) { self.driver.feed(.carrierWritable(.notification(.notify))) }
            }
            return .took(0, full: true, paced: true)
        }
        notified.append(value)
        return .took(1, full: false, paced: pacesItself)
    }
    func closeLane(_ lane: LaneID) { calls.append("closeLane \(lane)") }
    func disconnect(_ address: BluetoothAddress) { calls.append("disconnect \(address)") }
    func setReadValue(_ value: [UInt8], of characteristic: RelayCharacteristic) {
        if characteristic == .notify { notifyReadValue = value } else { writeReadValue = value }
    }
    func shutdown(then done: @escaping () -> Void) {
        calls.append("shutdown")
        loop.post(done)
    }
}

final class PeripheralDriverREPLTests: XCTestCase {
    struct Run {
        let status: Int32
        let lines: [String]
        let backend: FakePeripheralBackend
    }

    /// Runs the REPL non-interactively on `script` with `--json` output.
    func run(
        _ script: String, blockEvery: Int? = nil, configure: (FakePeripheralBackend) -> Void = { _ in }
    ) throws -> Run {
        let scripted = ScriptedREPL(script: script, programName: "relay-peripheral", eventNames: PeripheralEvent.names)
        let repl = scripted.repl
        let driver = PeripheralDriver(settings: .init(), loop: scripted.loop, console: scripted.console)
        for spec in PeripheralCommands.specs(driver: driver) { repl.add(spec) }
        repl.endOfInputHook = { done in driver.whenIdle(done) }
        repl.shutdownHook = { done in driver.shutdown(done) }
        let backend = FakePeripheralBackend(driver: driver, loop: scripted.loop)
        backend.blockEvery = blockEvery
        configure(backend)
        driver.performer = PeripheralPerformer(driver: driver, backend: backend)
        driver.feed(.adapter(.poweredOn, hci0))
        let (status, lines) = scripted.run()
        return Run(status: status, lines: lines, backend: backend)
    }

    func events(_ run: Run, named name: String) -> [String] {
        run.lines.filter { $0.hasPrefix(#"{"event":"\#(name)""#) }
    }

    func testArticleFlowScripted() throws {
        let result = try run(
            """
            start
            wait advertising 5
            wait subscribed 5
            wait counter 5
            wait counter 5
            wait counter 5
            notify
            notify
            notify
            send hello relay
            status
            """)
        XCTAssertEqual(result.status, 0, result.lines.joined(separator: "\n"))
        XCTAssertEqual(
            events(result, named: "counter"),
            (0...2).map { #"{"event":"counter","time":"T","from":"00:AA:01:01:00:01","value":\#($0)}"# })
        XCTAssertEqual(
            events(result, named: "notified"),
            (0...2).map { #"{"event":"notified","time":"T","value":\#($0),"centrals":1}"# })
        XCTAssertEqual(Array(result.backend.notified.prefix(3)), (0...2).map { Counter(UInt32($0)).encoded })
        XCTAssertEqual(reassemble(Array(result.backend.notified.dropFirst(3))), [Message(text: "hello relay")])
        XCTAssertTrue(result.backend.notified.dropFirst(3).allSatisfy { $0.count <= 182 })
        XCTAssertEqual(events(result, named: "sent").count, 1)
        XCTAssertEqual(result.backend.notifyReadValue, Counter(2).encoded, "reads return the last counter, not a frame")
        let status = try XCTUnwrap(events(result, named: "status").first)
        XCTAssertTrue(status.contains(#""advertising":true"#), status)
        XCTAssertTrue(status.contains(#""advertisingInterval":100"#), status)
        XCTAssertTrue(status.contains(#""counter":3"#), status)
        XCTAssertEqual(result.backend.calls.first, "registerApplication")
        XCTAssertEqual(
            result.backend.calls.suffix(3), ["unregisterAdvertisement", "unregisterApplication", "shutdown"])
    }

    func testLargeMessageThroughAFullSocketArrivesIntactAndEndOfInputWaitsForIt() throws {
        let result = try run(
            """
            start
            wait subscribed 5
            send-file /proc/self/cmdline
            send \(String(repeating: "0123456789", count: 3000))
            """, blockEvery: 3)
        XCTAssertEqual(result.status, 0, result.lines.joined(separator: "\n"))
        let messages = reassemble(result.backend.notified)
        XCTAssertEqual(messages.count, 2)
        XCTAssertEqual(messages.last, Message(text: String(repeating: "0123456789", count: 3000)))
        XCTAssertEqual(events(result, named: "sent").count, 2)
    }

    func testUnsubscribingWhileTheSocketIsFullDropsTheBlockedValueAndLetsTheScriptEnd() throws {
        let result = try run(
            """
            start
            wait subscribed 5
            send \(String(repeating: "x", count: 5000))
            wait unsubscribed 5
            """, blockEvery: 2
        ) { backend in
            backend.unsubscribeWhenFull = true
        }
        XCTAssertEqual(result.status, 0, result.lines.joined(separator: "\n"))
        XCTAssertEqual(events(result, named: "sent").count, 0)
        XCTAssertTrue(
            events(result, named: "error").contains { $0.contains("not sent") }, result.lines.joined(separator: "\n"))
    }

    func testFailuresMakeTheExitStatus1AndTheREPLGoesOn() throws {
        let result = try run(
            """
            frobnicate
            notify 99999999999
            notify
            send-file /nonexistent/file
            wait connected 0.2
            status
            """
        ) { backend in backend.centralScript = [] }
        XCTAssertEqual(result.status, 1)
        let errors = events(result, named: "error")
        XCTAssertEqual(errors.count, 5, result.lines.joined(separator: "\n"))
        XCTAssertTrue(errors[2].contains("start"), errors[2])
        XCTAssertEqual(events(result, named: "status").count, 1, "the REPL went on after the errors")
    }
}
