import RelayApp
import RelayBlueZ
import RelayCLI
import RelayProtocol
import RelayREPL
import RelayRuntime
import RelayTestSupport
import XCTest

@testable import relay_central

/// A Bluetooth side that answers on the loop's next turn and plays a relay peripheral (protocol
/// 1: the write and notify characteristics only) found by every scan.
final class FakeCentralBackend: CentralBackend {
    unowned let driver: CentralDriver
    let loop: EventLoop
    var calls: [String] = []
    /// Every value written, in order.
    var written: [[UInt8]] = []
    /// How long bluetoothd takes to answer a write (seconds).
    var writeDelay = 0.0

    init(driver: CentralDriver, loop: EventLoop) {
        self.driver = driver
        self.loop = loop
    }

    private func answer(_ inputs: CentralInput...) {
        loop.post { for input in inputs { self.driver.feed(input) } }
    }

    func start() { answer(.adapter(.poweredOn, SessionHarness.adapter)) }
    func startDiscovery(services: [BluetoothUUID]) {
        calls.append("startDiscovery")
        answer(.discoveryStarted, .deviceUpdated(SessionHarness.device()))
    }
    func stopDiscovery() { calls.append("stopDiscovery") }
    func connect(_ device: DeviceID, timeout: Double) {
        calls.append("connect")
        answer(.connectFinished(device, nil), .deviceUpdated(SessionHarness.device(connected: true, resolved: true)))
    }
    func disconnect(_ device: DeviceID) {
        calls.append("disconnect")
        answer(.disconnectFinished(device, nil), .deviceUpdated(SessionHarness.device(connected: false)))
    }
    func findCharacteristics(of device: DeviceID) {
        answer(.characteristicsFound(device, SessionHarness.relayCharacteristics))
    }
    func startNotify(_ characteristic: CharacteristicID) { answer(.notifyStarted(nil)) }
    func acquireNotify(_ characteristic: CharacteristicID) {
        answer(.notifyAcquireFailed(BlueZError(.notSupported, "no NotifyAcquired property")))
    }
    func acquireWrite(_ characteristic: CharacteristicID) { answer(.writeAcquired(MTU(185)!)) }
    func readMTU(_ characteristic: CharacteristicID) { answer(.mtuRead(MTU(185))) }
    func send(_ value: [UInt8], on carrier: Carrier) {
        guard case .gatt = carrier else { return answer(.sendFinished(.failed(.closed(.lane)))) }
        written.append(value)
        loop.schedule(after: writeDelay) { self.driver.feed(.sendFinished(.sent)) }
    }
    func releaseSockets() { calls.append("releaseSockets") }
    func readLanePSM(_ characteristic: CharacteristicID) {
        answer(.lanePSMRead(.failure(BlueZError(.notSupported, "no lane in the fake"))))
    }
    func openLane(to device: DeviceID, psm: LanePSM, security: LaneSecurity, timeout: Double) {
        answer(.laneOpenFailed(.couldNotOpen("no lane in the fake")))
    }
    func closeLane() { calls.append("closeLane") }
    func readValue(_ role: CharacteristicRole, of characteristic: CharacteristicID) {
        answer(.readFinished(role, .success(Counter(7).encoded)))
    }
    func pair(_ device: DeviceID) { answer(.pairFinished(device, nil)) }
    func answerPasskey(_ passkey: Passkey) {}
    func unpair(_ device: DeviceID) { answer(.unpairFinished(device, nil)) }
    func shutdown(disconnecting device: DeviceID?, then done: @escaping () -> Void) {
        calls.append("shutdown" + (device == nil ? "" : " disconnecting"))
        loop.post(done)
    }
}

/// relay-central through the shared driver and the REPL, as `main.swift` puts them together,
/// on the fake backend: scripts, command completion, the prompt, failures and the end of input.
final class CentralDriverREPLTests: XCTestCase {
    struct Run {
        let status: Int32
        let lines: [String]
        let backend: FakeCentralBackend
        let prompts: [String]
    }

    func run(_ script: String, configure: (FakeCentralBackend) -> Void = { _ in }) throws -> Run {
        let scripted = ScriptedREPL(script: script, programName: "relay-central", eventNames: CentralEvent.names)
        var prompts: [String] = []
        let driver = CentralDriver(settings: CentralSettings(), loop: scripted.loop, console: scripted.console)
        let repl = scripted.repl
        repl.prompt = driver.prompt
        for spec in CentralCommands.specs(driver: driver) { repl.add(spec) }
        driver.onPromptChange = { prompts.append($0) }
        driver.onDeliveryFailure = { [unowned repl] in repl.noteFailure() }
        repl.endOfInputHook = { done in driver.whenIdle(done) }
        repl.shutdownHook = { done in driver.shutdown(done) }
        let backend = FakeCentralBackend(driver: driver, loop: scripted.loop)
        configure(backend)
        driver.performer = CentralPerformer(driver: driver, backend: backend)
        backend.start()
        let (status, lines) = scripted.run()
        return Run(status: status, lines: lines, backend: backend, prompts: prompts)
    }

    func events(_ run: Run, named name: String) -> [String] {
        run.lines.filter { $0.hasPrefix(#"{"event":"\#(name)""#) }
    }

    func testArticleFlowScripted() throws {
        let result = try run(
            """
            wait state 5
            scan
            wait discovered 5
            connect 0
            wait ready 5
            write
            write 41
            send hello relay
            read
            status
            """)
        XCTAssertEqual(result.status, 0, result.lines.joined(separator: "\n"))
        XCTAssertEqual(Array(result.backend.written.prefix(2)), [Counter(0).encoded, Counter(41).encoded])
        var reassembler = Reassembler()
        let messages = result.backend.written.dropFirst(2).flatMap { value in
            reassembler.receive(value).compactMap { event -> Message? in
                if case .message(let received) = event { return received.message }
                return nil
            }
        }
        XCTAssertEqual(messages, [Message(text: "hello relay")])
        XCTAssertEqual(events(result, named: "sent").count, 1)
        XCTAssertEqual(events(result, named: "read").count, 2, result.lines.joined(separator: "\n"))
        let status = try XCTUnwrap(events(result, named: "status").first)
        XCTAssertTrue(status.contains(#""nextCounter":42"#), status)
        XCTAssertTrue(result.prompts.contains("relay-central [ready mtu 185]> "), "\(result.prompts)")
        XCTAssertEqual(result.backend.calls.last, "shutdown disconnecting", "quitting leaves the link")
    }

    func testEndOfInputWaitsForTheLastValueOfAMessage() throws {
        let text = String(repeating: "0123456789", count: 300)
        let result = try run(
            """
            scan
            wait discovered 5
            connect 0
            wait ready 5
            send \(text)
            """
        ) { backend in backend.writeDelay = 0.002 }
        XCTAssertEqual(result.status, 0, result.lines.joined(separator: "\n"))
        XCTAssertEqual(events(result, named: "sent").count, 1, "the script ended only once the message was sent")
        XCTAssertGreaterThan(result.backend.written.count, 10)
    }

    func testFailuresMakeTheExitStatus1AndTheREPLGoesOn() throws {
        let result = try run(
            """
            frobnicate
            write
            connect 3
            status
            """)
        XCTAssertEqual(result.status, 1)
        let errors = events(result, named: "error")
        XCTAssertEqual(errors.count, 3, result.lines.joined(separator: "\n"))
        XCTAssertTrue(errors[1].contains("not connected"), errors[1])
        XCTAssertEqual(events(result, named: "status").count, 1, "the REPL went on after the errors")
        XCTAssertEqual(result.backend.written, [], "nothing was written without a link")
    }
}
