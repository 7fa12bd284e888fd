import Foundation
import RelayEndpoint
import RelayProtocol
import RelayTestSupport

/// Two relay endpoints on a simulated link that loses frames (one by one and in bursts),
/// duplicates and reorders them, and drops and restores the connection, all from one seed: each
/// side sends `messages` messages of 0 to `maxSize` bytes to the other through `TransferSender`
/// and `TransferReceiver`, every frame encoded and parsed by the wire codecs. Time is simulated.
public struct DeliverySimulation {
    /// The link, the traffic and the seed.
    public struct Settings: Sendable {
        public var seed: UInt64 = 1
        public var messages = 100
        public var maxSize = 256 << 10
        /// Stream bytes per data frame.
        public var frameBytes = 2000
        /// Stream bytes a compact data frame carries (both sides agreed on version 3); nil: none go.
        public var compactBytes: Int?
        public var window = 32 << 10
        public var lossRate = 0.10
        /// Chance per frame that a burst starts: everything sent for the time of `burstLength`
        /// frames at full rate is lost.
        public var burstRate = 0.0005
        public var burstLength = 50
        public var duplicateRate = 0.01
        /// Chance that a frame is held back behind up to `reorderSpan` later ones.
        public var reorderRate = 0.02
        public var reorderSpan = 4
        public var latency = 0.02
        public var jitter = 0.002
        /// Bytes a second each way.
        public var bandwidth = 1_000_000.0
        /// Seconds of link time a sender may hand over ahead of the link (bluetoothd queues whatever
        /// it is given, acknowledgements behind the data before them); 0: one frame at a time.
        public var handOver = 0.0
        /// Every message this many bytes (nil: 0 to `maxSize`, drawn).
        public var fixedSize: Int?
        /// Every `stallEvery` seconds (0: never) each side stalls for `stallLength` seconds: what
        /// reaches it meanwhile waits, in order, until it runs again (a loaded machine that does not
        /// schedule the receiver; nothing is lost).
        public var stallEvery = 0.0
        public var stallLength = 1.5
        /// Connection drops per simulated hour, each down for `outage` seconds.
        public var dropsPerHour = 30.0
        public var outage: ClosedRange<Double> = 1...20
        /// Prints what happens to this side's transfer (debugging), e.g. (.a, 72).
        public var trace: (Side, UInt16)?

        /// The seed of the suite's run (the unit test and `relay-simulation`).
        public static let suiteSeed: UInt64 = 20_261_201

        /// The default link (10 % loss, bursts, duplicates, reordering, 30 drops an hour) for `messages`
        /// messages each way from `seed`.
        public init(seed: UInt64 = 1, messages: Int = 100) {
            self.seed = seed
            self.messages = messages
        }
    }

    /// What happened, counted over both sides.
    public struct Report: Sendable {
        public var delivered = [0, 0]
        public var lostFrames = 0
        public var lostDataBytes = 0
        public var lossEvents = 0
        public var outages = 0
        public var resentBytes = 0
        /// Retransmission time-outs, both senders.
        public var timeouts = 0
        public var sentBytes = 0
        public var payloadBytes = 0
        public var maxOutOfOrder = 0
        public var maxInFlight = 0
        public var resumed = 0
        public var duplicateFrames = 0
        /// Data frames sent in the compact form.
        public var compactFrames = 0
        public var simulatedSeconds = 0.0
        public var failures: [String] = []
        /// When the first message arrived, from which side, and what share of the message the other
        /// direction was carrying had arrived by then (0...1; 0 when none had begun to arrive): two
        /// transfers started together should share the link.
        public var firstArrival: (from: Side, at: Double, otherShare: Double)?

        /// An empty report: nothing delivered, lost or sent yet.
        public init() {}

        /// What the delivery machines promise on any link and did not keep: every message both ways
        /// exactly once and intact, resending at most what was lost plus a window per loss event,
        /// holding at most a window out of order, and (on a link that drops) resuming after drops.
        /// Empty when every promise held.
        public func brokenPromises(_ settings: Settings) -> [String] {
            var broken = failures
            if delivered != [settings.messages, settings.messages] {
                broken.append("delivered \(delivered), expected \(settings.messages) each way")
            }
            if settings.dropsPerHour > 0, outages == 0 { broken.append("the link never dropped") }
            if settings.dropsPerHour > 0, resumed == 0 { broken.append("no transfer resumed") }
            let bound = lostDataBytes + settings.window * lossEvents
            if resentBytes > bound {
                broken.append(
                    "resent \(resentBytes) bytes, more than what was lost plus a window per loss event (\(bound))")
            }
            if maxOutOfOrder > settings.window {
                broken.append("held \(maxOutOfOrder) bytes out of order, more than the window (\(settings.window))")
            }
            return broken
        }

        /// One line of figures for a run of `settings`.
        public func summary(_ settings: Settings) -> String {
            "simulation: \(settings.messages) messages each way, \(payloadBytes) bytes, "
                + "\(Int(simulatedSeconds)) s simulated, \(outages) drops, \(lostFrames) frames lost "
                + "(\(lostDataBytes) data bytes, \(lossEvents) events), resent \(resentBytes) "
                + "of \(sentBytes) bytes, \(resumed) resumes, max out of order \(maxOutOfOrder)"
        }
    }

    /// The key each side files the other under.
    public enum Side: Int, Comparable, Sendable {
        case a = 0
        case b = 1
        public static func < (lhs: Side, rhs: Side) -> Bool { lhs.rawValue < rhs.rawValue }
        public var other: Side { self == .a ? .b : .a }
    }

    private struct InFlightFrame {
        let arrival: Double
        let order: Int
        let bytes: [UInt8]
    }

    private struct Endpoint {
        var sender: TransferSender<Side>
        var receiver: TransferReceiver
        /// Messages queued in the sender, by number: their stream (header + bytes) and message.
        var streams: [Int: [UInt8]] = [:]
        var messages: [Int: Message] = [:]
        var nextNumber = 0
        /// Numbers of messages sent, in order, not yet received by the other side.
        var expecting: [Int] = []
        var deliveredNumbers = Set<Int>()
    }

    public let settings: Settings
    private var random: SeededGenerator
    private var now = 0.0
    private var order = 0
    private var endpoints: [Endpoint]
    /// Frames on their way, per direction (index: the sending side).
    private var wire: [[InFlightFrame]] = [[], []]
    private var busyUntil = [0.0, 0.0]
    private var burstUntil = [-1.0, -1.0]
    private var linkUp = true
    private var nextLinkChange: Double
    private let pattern: [UInt8]
    public private(set) var report = Report()

    /// A simulation of `settings`; nothing runs until `run`.
    public init(_ settings: Settings) {
        self.settings = settings
        random = SeededGenerator(seed: settings.seed)
        var patternGenerator = SeededGenerator(seed: settings.seed ^ 0xA5A5)
        pattern = (0..<65_521).map { _ in UInt8(truncatingIfNeeded: patternGenerator.next()) }
        let senderSettings = TransferSender<Side>.Configuration(window: settings.window)
        let receiverSettings = TransferReceiver.Configuration(window: settings.window, maxMessage: settings.maxSize)
        endpoints = [Side.a, Side.b].map { side in
            var sender = TransferSender<Side>(
                configuration: senderSettings, firstTransfer: TransferID(UInt16(side.rawValue * 1000)))
            sender.linkUp(side.other, window: settings.window, compact: settings.compactBytes != nil, at: 0)
            var receiver = TransferReceiver(
                configuration: receiverSettings, session: SessionNumber(UInt8(side.rawValue + 1))!)
            _ = receiver.linkUp(next: TransferID(UInt16(side.other.rawValue * 1000)), at: 0)
            return Endpoint(sender: sender, receiver: receiver)
        }
        nextLinkChange = 0
        nextLinkChange = drawDrop()
    }

    /// Runs until every message arrived both ways (or `limit` simulated seconds passed).
    public mutating func run(limit: Double = 1e7) -> Report {
        for side in [Side.a, .b] {
            for _ in 0..<3 { queueMessage(from: side) }
        }
        while !finished, now < limit {
            for side in [Side.a, .b] { pump(side) }
            guard let next = nextEventTime() else { break }
            now = max(now, next)
            if now >= nextLinkChange { toggleLink() }
            deliverArrivals()
            for side in [Side.a, .b] { runTimers(side) }
        }
        report.simulatedSeconds = now
        for side in [Side.a, .b] {
            report.resentBytes += endpoints[side.rawValue].sender.counts.resentBytes
            report.timeouts += endpoints[side.rawValue].sender.counts.timeouts
            report.sentBytes += endpoints[side.rawValue].sender.counts.sentBytes
            report.duplicateFrames += endpoints[side.rawValue].receiver.counts.duplicateFrames
        }
        return report
    }

    private var finished: Bool {
        report.delivered.allSatisfy { $0 >= settings.messages }
            && endpoints.allSatisfy { $0.sender.isIdle && $0.expecting.isEmpty }
    }

    // MARK: Messages

    private mutating func queueMessage(from side: Side) {
        var endpoint = endpoints[side.rawValue]
        guard endpoint.nextNumber < settings.messages else { return }
        let number = endpoint.nextNumber
        endpoint.nextNumber += 1
        let size = settings.fixedSize ?? Int(random.next() % UInt64(settings.maxSize + 1))
        let start = Int(random.next() % UInt64(pattern.count))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        var offset = start
        while bytes.count < size {
            let take = min(size - bytes.count, pattern.count - offset)
            bytes += pattern[offset..<(offset + take)]
            offset = 0
        }
        let message = Message(kind: number % 3 == 0 ? .text : .binary, bytes: bytes)
        let header = MessageHeader(of: message)
        endpoint.streams[number] = header.encoded + bytes
        endpoint.messages[number] = message
        endpoint.expecting.append(number)
        endpoint.sender.enqueue(
            number: number, headerLength: header.encodedLength, streamLength: header.streamLength, for: [side.other],
            at: now)
        report.payloadBytes += size
        endpoints[side.rawValue] = endpoint
    }

    // MARK: Sending

    private mutating func pump(_ side: Side) {
        guard linkUp else { return }
        let frameTime = Double(settings.frameBytes) / settings.bandwidth
        while busyUntil[side.rawValue] <= now + max(frameTime, settings.handOver) {
            guard
                let transmission = endpoints[side.rawValue].sender.nextTransmission(
                    at: now, maxBytes: settings.frameBytes, compactBytes: settings.compactBytes)
            else { break }
            let stream = endpoints[side.rawValue].streams[transmission.number]!
            if traced(side, transmission.transfer) {
                print(
                    "\(now) \(side) sends \(transmission.transfer) \(transmission.range) again=\(transmission.isRetransmission)"
                )
            }
            if transmission.compact {
                report.compactFrames += 1
                let frame = CompactDataFrame(
                    offset: transmission.range.lowerBound, bytes: Array(stream[transmission.range]))
                send(frame.encoded, from: side)
                continue
            }
            let frame = DataFrame(
                session: SessionNumber(UInt8(side.rawValue + 1))!, transfer: transmission.transfer,
                offset: UInt32(transmission.range.lowerBound), bytes: Array(stream[transmission.range]))
            send(.data(frame), from: side)
        }
    }

    private mutating func send(_ frame: SessionFrame, from side: Side) {
        send(frame.encoded, from: side)
    }

    /// The stream bytes a value carries (0 for anything but data).
    private static func dataBytes(_ bytes: [UInt8]) -> Int {
        switch try? SessionValue(parsing: bytes) {
        case .compact(let frame): frame.bytes.count
        case .frame(.data(let frame)): frame.bytes.count
        default: 0
        }
    }

    private mutating func send(_ bytes: [UInt8], from side: Side) {
        let isData = Self.dataBytes(bytes) > 0
        let start = max(now, busyUntil[side.rawValue])
        busyUntil[side.rawValue] = start + Double(bytes.count) / settings.bandwidth
        guard linkUp else { return }
        // Loss: one by one, or a burst.
        var lost = false
        if start < burstUntil[side.rawValue] {
            lost = true
        } else if random.chance(settings.burstRate) {
            burstUntil[side.rawValue] = start + Double(settings.burstLength * settings.frameBytes) / settings.bandwidth
            report.lossEvents += 1
            lost = true
        } else if random.chance(settings.lossRate) {
            report.lossEvents += 1
            lost = true
        }
        if lost {
            report.lostFrames += 1
            if isData { report.lostDataBytes += Self.dataBytes(bytes) }
            return
        }
        var arrival = busyUntil[side.rawValue] + settings.latency + random.unit() * settings.jitter
        if random.chance(settings.reorderRate) {
            arrival +=
                Double(1 + Int(random.next() % UInt64(settings.reorderSpan))) * Double(settings.frameBytes)
                / settings.bandwidth
        }
        arrival = afterStall(arrival)
        order += 1
        wire[side.rawValue].append(InFlightFrame(arrival: arrival, order: order, bytes: bytes))
        if random.chance(settings.duplicateRate) {
            order += 1
            wire[side.rawValue].append(InFlightFrame(arrival: arrival + 0.01, order: order, bytes: bytes))
        }
    }

    /// When a frame reaching its receiver at `arrival` is read: at the end of a stall under way then.
    private func afterStall(_ arrival: Double) -> Double {
        guard settings.stallEvery > 0 else { return arrival }
        let start = (arrival / settings.stallEvery).rounded(.down) * settings.stallEvery
        return start > 0 && arrival < start + settings.stallLength ? start + settings.stallLength : arrival
    }

    // MARK: Receiving

    private mutating func deliverArrivals() {
        for side in [Side.a, .b] {
            let due = wire[side.rawValue].filter { $0.arrival <= now }.sorted {
                ($0.arrival, $0.order) < ($1.arrival, $1.order)
            }
            guard !due.isEmpty else { continue }
            wire[side.rawValue].removeAll { $0.arrival <= now }
            for frame in due { arrive(frame.bytes, at: side.other) }
        }
    }

    private mutating func arrive(_ bytes: [UInt8], at side: Side) {
        let frame: SessionFrame
        do {
            switch try SessionValue(parsing: bytes) {
            case .frame(let parsed): frame = parsed
            case .compact(let compact):
                endpoints[side.rawValue].sender.heardData(from: side.other, at: now)
                perform(endpoints[side.rawValue].receiver.receive(compact, at: now), at: side)
                return
            case .counter: throw SessionFrameError.notSessionFrame(firstByte: bytes[0])
            }
        } catch {
            report.failures.append("unparsable frame: \(error)")
            return
        }
        switch frame {
        case .data(let data):
            endpoints[side.rawValue].sender.heardData(from: side.other, at: now)
            let actions = endpoints[side.rawValue].receiver.receive(data, at: now)
            if traced(side.other, data.transfer) { print("\(now) \(side) got \(data.span) -> \(actions)") }
            report.maxOutOfOrder = max(report.maxOutOfOrder, endpoints[side.rawValue].receiver.bufferedOutOfOrder)
            perform(actions, at: side)
        case .acknowledgement(let ack):
            if traced(side, ack.transfer) { print("\(now) \(side) ack \(ack)") }
            perform(endpoints[side.rawValue].sender.acknowledge(ack, from: side.other, at: now), at: side)
        case .abort(let abort):
            perform(endpoints[side.rawValue].receiver.abort(abort, at: now), at: side)
        case .hello, .welcome:
            report.failures.append("unexpected \(frame.type)")
        }
    }

    private mutating func perform(_ actions: [TransferReceiver.Action], at side: Side) {
        for action in actions {
            switch action {
            case .acknowledge(let ack): send(.acknowledgement(ack), from: side)
            case .deliver(_, _, let message): delivered(message, at: side)
            case .write(_, let bytes): fileBytes[side.rawValue] += bytes
            case .deliverFile(_, let header, _):
                delivered(Message(kind: header.kind, bytes: fileBytes[side.rawValue], name: header.name), at: side)
                fileBytes[side.rawValue] = []
            case .dropped(let dropped):
                report.failures.append("\(side) dropped \(dropped.transfer): \(dropped.cause)")
                fileBytes[side.rawValue] = []
            case .started, .progress: break
            }
        }
    }

    /// Each side's file in progress, as its `write` actions gave it.
    private var fileBytes: [[UInt8]] = [[], []]

    private mutating func delivered(_ message: Message, at side: Side) {
        let from = side.other.rawValue
        guard let number = endpoints[from].expecting.first else {
            report.failures.append("\(side) got a message nobody sent")
            return
        }
        endpoints[from].expecting.removeFirst()
        if report.firstArrival == nil {
            // The other direction: `side` sends, `side.other` receives.
            let other = endpoints[side.other.rawValue].receiver.inProgress
            let share = other.map { progress in
                progress.total.map { Double(progress.received) / Double(max(1, $0)) } ?? 0
            }
            report.firstArrival = (side.other, now, share ?? 0)
        }
        if endpoints[from].messages.removeValue(forKey: number) != message {
            report.failures.append("\(side) got message \(number) wrong or out of order")
        }
        report.delivered[from] += 1
    }

    private mutating func perform(_ actions: [TransferSender<Side>.Action], at side: Side) {
        for action in actions {
            switch action {
            case .delivered(let number, _, _):
                guard endpoints[side.rawValue].deliveredNumbers.insert(number).inserted else {
                    report.failures.append("\(side): message \(number) reported delivered twice")
                    continue
                }
            case .failed(let number, _, let failure):
                report.failures.append("\(side): message \(number) failed: \(failure)")
            case .finished(let number):
                endpoints[side.rawValue].streams[number] = nil
                queueMessage(from: side)
            case .abort(_, let transfer, let reason):
                send(
                    .abort(
                        Abort(reason: reason, session: SessionNumber(UInt8(side.rawValue + 1))!, transfer: transfer)),
                    from: side)
            case .resumed:
                report.resumed += 1
            case .progress:
                break
            case .breach(_, let breach):
                report.failures.append("\(side): an honest peer was taken for a broken one: \(breach)")
            }
        }
    }

    // MARK: Time and the link

    private mutating func runTimers(_ side: Side) {
        if let deadline = endpoints[side.rawValue].sender.nextDeadline, deadline <= now {
            perform(endpoints[side.rawValue].sender.tick(at: now), at: side)
        }
        if let deadline = endpoints[side.rawValue].receiver.nextDeadline, deadline <= now {
            perform(endpoints[side.rawValue].receiver.tick(at: now), at: side)
        }
    }

    private func nextEventTime() -> Double? {
        var times: [Double] = [nextLinkChange]
        for side in [Side.a, .b] {
            if let first = wire[side.rawValue].map(\.arrival).min() { times.append(first) }
            if let deadline = endpoints[side.rawValue].sender.nextDeadline { times.append(deadline) }
            if let deadline = endpoints[side.rawValue].receiver.nextDeadline { times.append(deadline) }
            if busyUntil[side.rawValue] > now { times.append(busyUntil[side.rawValue]) }
        }
        return times.filter { $0 >= now }.min() ?? times.min()
    }

    private mutating func drawDrop() -> Double {
        guard settings.dropsPerHour > 0 else { return .infinity }
        return now - log(1 - random.unit()) * 3600 / settings.dropsPerHour
    }

    private func traced(_ side: Side, _ transfer: TransferID) -> Bool {
        settings.trace.map { $0.0 == side && $0.1 == transfer.value } ?? false
    }

    private mutating func toggleLink() {
        if settings.trace != nil { print("\(now) link \(linkUp ? "down" : "up")") }
        if linkUp {
            linkUp = false
            report.outages += 1
            report.lossEvents += 1
            for side in [Side.a, .b] {
                for frame in wire[side.rawValue] {
                    report.lostFrames += 1
                    report.lostDataBytes += Self.dataBytes(frame.bytes)
                }
                wire[side.rawValue] = []
                endpoints[side.rawValue].sender.linkDown(side.other, at: now)
                endpoints[side.rawValue].receiver.linkDown(at: now)
            }
            let span = settings.outage
            nextLinkChange = now + span.lowerBound + random.unit() * (span.upperBound - span.lowerBound)
        } else {
            linkUp = true
            for side in [Side.a, .b] {
                busyUntil[side.rawValue] = now
                endpoints[side.rawValue].sender.linkUp(
                    side.other, window: settings.window, compact: settings.compactBytes != nil, at: now)
            }
            for side in [Side.a, .b] {
                let next = endpoints[side.other.rawValue].sender.nextTransfer(for: side)
                perform(endpoints[side.rawValue].receiver.linkUp(next: next, at: now), at: side)
            }
            nextLinkChange = drawDrop()
        }
    }
}
