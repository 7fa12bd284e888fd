import RelayProtocol

/// Placing a frame's bytes in the message (in order, or held within the window), finishing a
/// message, and the acknowledgements that say so.
extension TransferReceiver {
    enum MergeOutcome {
        /// Still in progress; whether a new gap opened (acknowledged at once).
        case kept(newGap: Bool)
        /// Done: delivered (with the message, or a file's digest) or refused (status, nothing).
        case finished(AcknowledgementStatus, Completed?)
    }

    enum Completed {
        case message(Message)
        case file(SHA256.Digest)
    }

    mutating func merge(
        _ frame: DataFrame, into current: inout Partial, actions: inout [Action]
    ) -> MergeOutcome {
        var start = Int(frame.offset)
        var end = start + frame.bytes.count
        if let streamLength = current.streamLength, end > streamLength {
            return .finished(.badHeader, nil)
        }
        let limit = current.received + configuration.window
        if end > limit {
            counts.beyondWindow += 1
            end = limit
            guard start < end else { return .kept(newGap: false) }
        }
        if end <= current.received || current.pending.held.contains(start..<end) {
            counts.duplicateFrames += 1
            return .kept(newGap: false)
        }
        if start > current.received {
            // Out of order: keep the parts not held yet.
            let hadGap = !current.pending.held.isEmpty
            let from = start - Int(frame.offset)
            guard current.pending.keep(frame.bytes[from..<(end - Int(frame.offset))], at: start) else {
                counts.fragmentedFrames += 1
                return .kept(newGap: false)
            }
            counts.framesWithNewBytes += 1
            return .kept(newGap: !hadGap)
        }
        // In order from `received`.
        counts.framesWithNewBytes += 1
        start = current.received
        let from = start - Int(frame.offset)
        if let outcome = append(Array(frame.bytes[from..<(end - Int(frame.offset))]), to: &current, actions: &actions) {
            return outcome
        }
        // Bytes held out of order that now follow on (or that the frame partly covered).
        while let tail = current.pending.take(from: current.received) {
            if let outcome = append(tail, to: &current, actions: &actions) { return outcome }
        }
        return .kept(newGap: false)
    }

    /// Appends in-order stream bytes; returns an outcome when the message is finished.
    mutating func append(_ bytes: [UInt8], to current: inout Partial, actions: inout [Action]) -> MergeOutcome? {
        var bytes = ArraySlice(bytes)
        if current.header == nil {
            let needed = MessageHeader.length(
                ofHeaderStarting: current.headerBytes + bytes.prefix(MessageHeader.fixedLength))
            let want = (needed ?? MessageHeader.fixedLength) - current.headerBytes.count
            let take = min(want, bytes.count)
            current.headerBytes += bytes.prefix(take)
            current.received += take
            bytesSinceAck += take
            bytes = bytes.dropFirst(take)
            if let total = MessageHeader.length(ofHeaderStarting: current.headerBytes),
                current.headerBytes.count < total
            {
                // The name is still coming.
                if !bytes.isEmpty { return append(Array(bytes), to: &current, actions: &actions) }
                return nil
            }
            guard current.headerBytes.count >= MessageHeader.fixedLength else { return nil }
            let header: MessageHeader
            do {
                header = try MessageHeader(parsing: current.headerBytes)
            } catch {
                return .finished(.badHeader, nil)
            }
            let limit = header.name.isEmpty ? configuration.maxMessage : configuration.maxFile
            guard Int(header.length) <= limit else { return .finished(.tooLarge, nil) }
            current.header = header
            current.headerBytes = []
            // A text or binary message's bytes grow as they come: its declared length reserves nothing.
            if !header.name.isEmpty { current.digest = SHA256() }
            actions.append(.started(current.transfer, header))
        }
        guard let header = current.header else { return nil }
        if !bytes.isEmpty {
            guard current.messageBytes + bytes.count <= Int(header.length) else { return .finished(.badHeader, nil) }
            bytes.withUnsafeBytes { current.crc.update($0) }
            if current.digest != nil {
                let chunk = Array(bytes)
                current.digest!.update(chunk)
                actions.append(.write(current.transfer, chunk))
            } else {
                current.payload.append(contentsOf: bytes)
            }
            current.messageBytes += bytes.count
            current.received += bytes.count
            bytesSinceAck += bytes.count
        }
        guard current.messageBytes == Int(header.length) else { return nil }
        guard current.crc.value == header.checksum else { return .finished(.checksumMismatch, nil) }
        if let digest = current.digest { return .finished(.delivered, .file(digest.finalize())) }
        return .finished(.delivered, .message(Message(kind: header.kind, bytes: current.payload, name: header.name)))
    }

    mutating func finish(
        _ transfer: TransferID, _ status: AcknowledgementStatus, streamLength: Int, at now: Double
    ) -> [Action] {
        remember(transfer, status, streamLength: streamLength)
        expected = transfer.next
        clearAck()
        lastDuplicateAck[transfer] = now
        return linked ? [finalAcknowledgement(transfer, status, streamLength)] : []
    }

    mutating func remember(_ transfer: TransferID, _ status: AcknowledgementStatus, streamLength: Int) {
        finished.append((transfer, status, streamLength))
        if finished.count > 8 {
            let gone = finished.removeFirst()
            lastDuplicateAck[gone.transfer] = nil
        }
    }

    mutating func answerDuplicate(
        _ transfer: TransferID, _ status: AcknowledgementStatus, _ streamLength: Int, at now: Double
    ) -> [Action] {
        guard linked, now - (lastDuplicateAck[transfer] ?? -.infinity) >= configuration.duplicateAckInterval else {
            return []
        }
        lastDuplicateAck[transfer] = now
        return [finalAcknowledgement(transfer, status, streamLength)]
    }

    func finalAcknowledgement(
        _ transfer: TransferID, _ status: AcknowledgementStatus, _ streamLength: Int
    )
        -> Action
    {
        .acknowledge(
            Acknowledgement(
                status: status, session: session, transfer: transfer,
                received: UInt32(clamping: status == .delivered ? streamLength : 0)))
    }

    /// What is held of the message in progress, now.
    mutating func acknowledgement(at now: Double) -> Action {
        clearAck()
        guard let current = partial else { preconditionFailure("an acknowledgement without a message") }
        let spans = current.pending.held.ranges.prefix(Acknowledgement.maximumSpans).compactMap {
            ByteSpan(start: UInt32($0.lowerBound), end: UInt32($0.upperBound))
        }
        return .acknowledge(
            Acknowledgement(
                status: .receiving, session: session, transfer: current.transfer, received: UInt32(current.received),
                spans: spans))
    }

    mutating func clearAck() {
        ackDue = nil
        bytesSinceAck = 0
    }

    static func progressIfDue(_ current: inout Partial, every interval: Double, at now: Double) -> [Action] {
        guard let header = current.header, now - current.lastProgressAt >= interval else {
            return []
        }
        current.lastProgressAt = now
        return [.progress(current.transfer, received: current.messageReceived, total: Int(header.length))]
    }
}
