import RelayApp
import RelayBlueZ
import RelayCLI
import RelayEndpoint
import RelayProtocol
import XCTest

@testable import relay_central

final class EventRenderingTests: XCTestCase {
    let console = Console(format: .json, output: { _ in }, clock: { "T" })

    func testDiscoveredCarriesIndexNameAddressAndRSSI() {
        let candidate = Candidate(
            index: 2, id: DeviceID(path: "/d")!, address: BluetoothAddress("00:AA:01:00:00:00")!, name: "sample",
            rssi: -47)
        let event = CentralEvent.discovered(candidate)
        XCTAssertEqual(
            console.jsonLine(name: event.name, fields: event.fields),
            #"{"event":"discovered","time":"T","index":2,"name":"sample","address":"00:AA:01:00:00:00","rssi":-47}"#)
    }

    func testReadyOnTheLaneSaysSo() {
        let peer = Peer(id: DeviceID(path: "/d")!, address: BluetoothAddress("00:AA:01:00:00:00")!, name: "sample")
        let ready = CentralEvent.ready(
            peer, mtu: MTU(517)!, path: .socket, notify: .socket, protocolVersion: 2, lane: .l2cap)
        XCTAssertTrue(
            console.jsonLine(name: ready.name, fields: ready.fields).hasSuffix(#""protocol":2,"lane":"l2cap"}"#))
        XCTAssertTrue(ready.humanDescription.hasSuffix("protocol 2: delivery confirmed, messages on the L2CAP lane"))
    }

    func testTheLaneOpenEventHasLowerCamelCaseKeysAndTheOldMaxValueBesideIt() {
        let event = CentralEvent.lane(
            .open(PeerName(.peripheral, BluetoothAddress("00:AA:01:00:00:00")!), psm: LanePSM(128), valueLength: 8192))
        XCTAssertEqual(
            console.jsonLine(name: event.name, fields: event.fields),
            #"{"event":"lane","time":"T","state":"open","address":"00:AA:01:00:00:00","psm":128,"maxValue":8192,"#
                + #""max_value":8192}"#)
    }

    func testReadyMessageAndDisconnectedFields() {
        let peer = Peer(id: DeviceID(path: "/d")!, address: BluetoothAddress("00:AA:01:00:00:00")!, name: "sample")
        let ready = CentralEvent.ready(peer, mtu: MTU(517)!, path: .socket, notify: .socket, protocolVersion: 1)
        XCTAssertEqual(
            console.jsonLine(name: ready.name, fields: ready.fields),
            #"{"event":"ready","time":"T","address":"00:AA:01:00:00:00","name":"sample","mtu":517,"maxValue":510,"path":"socket","notify":"socket","service":"relay","protocol":1,"lane":null}"#
        )
        let message = CentralEvent.transfer(
            .message(
                ReceivedMessageReport(
                    from: PeerName(.peripheral, peer.address), id: 3, message: Message(text: "hi"))))
        XCTAssertEqual(
            console.jsonLine(name: message.name, fields: message.fields),
            #"{"event":"message","time":"T","from":"00:AA:01:00:00:00","id":3,"kind":"text","length":2,"#
                + #""sha256":"8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4","text":"hi","name":null,"saved":null,"via":"relay"}"#
        )
        let gone = CentralEvent.disconnected(peer, reason: "connection lost")
        XCTAssertEqual(gone.fields.last?.1, .string("connection lost"))
    }

    func testEveryEventNameIsListed() {
        let peer = Peer(id: DeviceID(path: "/d")!, address: BluetoothAddress("00:AA:01:00:00:00")!, name: nil)
        let partial = PartialMessageReport(id: 1, kind: .binary, received: 1, total: 2)
        let status = CentralStatus(
            adapter: AdapterReport(adapter: nil, state: .unknown), link: "disconnected", peer: nil, mtu: nil, path: nil,
            scanning: false,
            candidates: 0, nextCounter: Counter(0), lastReceived: nil, messagesReceived: 0, messagesSent: 0,
            pendingSends: 0, protocolVersion: nil)
        let all: [CentralEvent] = [
            .state(.poweredOn, adapter: nil), .scanning(timeout: 1, seeking: nil),
            .scanStopped(reason: .timeout, found: 0),
            .discovered(Candidate(index: 0, id: DeviceID(path: "/d")!, address: peer.address, name: "s", rssi: nil)),
            .connecting(peer), .connected(peer),
            .ready(peer, mtu: MTU(23)!, path: .writeValue, notify: .signal, protocolVersion: 1),
            .mtu(MTU(23)!),
            .disconnected(peer, reason: "x"), .reconnecting(peer.address),
            .redial(peer, reason: .forgotten, remaining: 10),
            .transfer(.counter(from: PeerName(.peripheral, peer.address), Counter(1))), .written(Counter(1)),
            .transfer(
                .receiving(
                    from: PeerName(.peripheral, peer.address),
                    PartialMessageReport(id: 1, kind: .text, received: 1, total: 9))),
            .transfer(
                .message(
                    ReceivedMessageReport(
                        from: PeerName(.peripheral, peer.address), id: 1, message: Message(binary: [])))),
            .transfer(.dropped(from: PeerName(.peripheral, peer.address), partial, .linkEnded("x"))),
            .transfer(
                .sent(OutgoingMessage(number: 1, id: 1, kind: .text, length: 0, sha256: "", frames: 1, mtu: MTU(23)!))),
            .transfer(
                .delivered(
                    SentMessageSummary(id: 1, length: 0, sha256: ""), to: PeerName(.peripheral, peer.address),
                    seconds: 1)),
            .transfer(
                .unconfirmed(SentMessageSummary(id: 1, length: 0, sha256: ""), to: PeerName(.peripheral, peer.address))),
            .transfer(.resumed(id: 1, offset: 0, total: 0, to: PeerName(.peripheral, peer.address))),
            .transfer(.progress(id: 1, direction: .incoming, bytes: 0, total: 0, rate: 0, name: nil)),
            .transfer(
                .failed(
                    SentMessageSummary(id: 1, length: 0, sha256: ""), to: PeerName(.peripheral, peer.address),
                    .cancelled)),
            .trace(
                .value(
                    TraceEvent(
                        elapsed: 0, direction: .incoming, characteristic: .write, peer: nil, bytes: [1, 0, 0, 0],
                        meaning: "counter 1"))),
            .trace(.summary(TraceSummary(leftOut: 2))),
            .read(.write, value: []), .list([]),
            .status(status), .error(.notConnected),
            .pairing(.request(PeerName(.peripheral, peer.address))),
            .pairing(.paired(PeerName(.peripheral, peer.address))),
            .pairing(.failed(PeerName(.peripheral, peer.address), .wrongPasskey)),
            .pairing(.unpaired(PeerName(.peripheral, peer.address))),
            .lane(.open(PeerName(.peripheral, peer.address), psm: LanePSM(0x80)!, valueLength: 510)),
        ]
        XCTAssertEqual(Set(all.map(\.name)), Set(CentralEvent.names))
        XCTAssertEqual(all.count, CentralEvent.names.count)
        XCTAssertEqual(
            CentralEvent.discovered(
                Candidate(index: 0, id: DeviceID(path: "/d")!, address: peer.address, name: "s", rssi: nil)
            )
            .humanDescription,
            "[0] 00:AA:01:00:00:00 s RSSI n/a", "no RSSI is n/a, not a number")
        for event in all { XCTAssertFalse(event.humanDescription.isEmpty, event.name) }
    }
}
