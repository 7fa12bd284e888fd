/// Bytes of one message's stream (its `MessageHeader`, then the message) at an offset.
///
/// ```
/// 0     0xB2
/// 1     0x03 data
/// 2     flags: reserved, 0
/// 3     session: from a central, its own (1-254); from the peripheral, 255 (every central the
///       message is for) or one central's
/// 4-5   transfer id, UInt16 LE
/// 6-9   offset of the first byte in the message stream, UInt32 LE
/// 10... at least one stream byte
/// ```
public struct DataFrame: Sendable, Hashable {
    /// Header bytes before the data.
    public static let headerLength = 10

    public var session: SessionNumber
    public var transfer: TransferID
    public var offset: UInt32
    public var bytes: [UInt8]

    public init(session: SessionNumber, transfer: TransferID, offset: UInt32, bytes: [UInt8]) {
        self.session = session
        self.transfer = transfer
        self.offset = offset
        self.bytes = bytes
    }

    /// The stream bytes this frame covers.
    public var span: ByteSpan { ByteSpan(start: offset, end: offset + UInt32(bytes.count))! }

    public var encodedLength: Int { Self.headerLength + bytes.count }

    public func encode(into bytes: inout [UInt8]) {
        Self.encodeHeader(session: session, transfer: transfer, offset: offset, into: &bytes)
        bytes.append(contentsOf: self.bytes)
    }

    /// Appends the 10 header bytes of a data frame (the stream bytes follow).
    public static func encodeHeader(
        session: SessionNumber, transfer: TransferID, offset: UInt32, into bytes: inout [UInt8]
    ) {
        SessionFrame.appendHeader(.data, to: &bytes)
        bytes.append(0)
        bytes.append(session.value)
        appendLittleEndian(transfer.value, to: &bytes)
        appendLittleEndian(offset, to: &bytes)
    }

    public init(parsing bytes: some Collection<UInt8>) throws(SessionFrameError) {
        var reader = WireReader(bytes)
        try self.init(reading: &reader)
    }

    init(reading reader: inout WireReader) throws(SessionFrameError) {
        try SessionFrame.begin(&reader, .data, required: Self.headerLength)
        let flags = reader.uint8()
        guard flags == 0 else { throw .reservedBits(.data, flags) }
        session = try SessionNumber.anyone(reader.uint8(), in: .data)
        transfer = TransferID(reader.uint16())
        offset = reader.uint32()
        guard reader.remaining > 0 else { throw .emptyData }
        guard UInt64(offset) + UInt64(reader.remaining) <= UInt64(UInt32.max) else { throw .badRanges }
        bytes = reader.rest()
    }
}

/// What a receiver reports about a message (byte 2 of an acknowledgement).
public enum AcknowledgementStatus: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// Still receiving: the cumulative point and ranges say what is held.
    case receiving = 0x00
    /// The whole message arrived with its CRC-32C checked, and was handed to the user.
    case delivered = 0x01
    /// The receiver gave the message up (it stalled, or the sender did not come back in time).
    case gaveUp = 0x02
    /// The message is larger than the receiver accepts.
    case tooLarge = 0x03
    /// The bytes arrived but their CRC-32C is not the declared one.
    case checksumMismatch = 0x04
    /// The message header is malformed (unknown kind, reserved bits, data past the end).
    case badHeader = 0x05
    /// The whole message arrived with its CRC-32C checked, but the receiver could not save it
    /// (`--save-dir`: the disk full, no free name, no permission). A relay of the release before
    /// this status does not know it: it reports `unknown status 0x06` and its message fails at its
    /// delivery time-out (it never reports it delivered).
    case notSaved = 0x06

    /// Whether the receiver is done with the message (every status but `receiving`).
    public var isFinal: Bool { self != .receiving }

    public var description: String {
        switch self {
        case .receiving: "receiving"
        case .delivered: "delivered"
        case .gaveUp: "given up by the receiver"
        case .tooLarge: "too large for the receiver"
        case .checksumMismatch: "checksum mismatch at the receiver"
        case .badHeader: "refused by the receiver: malformed header"
        case .notSaved: "not saved by the receiver"
        }
    }
}

/// What a receiver holds of one message: every stream byte below `received`, and up to four
/// ranges beyond it; or that it is done with the message (`status`).
///
/// ```
/// 0     0xB2
/// 1     0x04 acknowledgement
/// 2     status (AcknowledgementStatus)
/// 3     session: from a central, its own; from the peripheral, the central's it acknowledges (1-254)
/// 4-5   transfer id, UInt16 LE
/// 6-9   received: every stream byte below this offset is held, UInt32 LE
/// 10... 0 to 4 ranges held beyond it, each start UInt32 LE, end UInt32 LE (half-open), ascending,
///       apart from each other and above `received`
/// ```
public struct Acknowledgement: Sendable, Hashable {
    /// Bytes before the ranges.
    public static let headerLength = 10
    /// Bytes per range.
    public static let spanLength = 8
    /// The most ranges one acknowledgement carries.
    public static let maximumSpans = 4

    public var status: AcknowledgementStatus
    public var session: SessionNumber
    public var transfer: TransferID
    public var received: UInt32
    public var spans: [ByteSpan]

    /// An acknowledgement; at most `maximumSpans` ranges are kept (the lowest).
    public init(
        status: AcknowledgementStatus, session: SessionNumber, transfer: TransferID, received: UInt32,
        spans: [ByteSpan] = []
    ) {
        self.status = status
        self.session = session
        self.transfer = transfer
        self.received = received
        self.spans = Array(spans.prefix(Self.maximumSpans))
    }

    /// The ranges that fit a value of `length` bytes.
    public static func spans(fitting length: Int) -> Int {
        max(0, min(maximumSpans, (length - headerLength) / spanLength))
    }

    public var encodedLength: Int { Self.headerLength + Self.spanLength * spans.count }

    /// This acknowledgement with only the ranges that fit a value of `length` bytes (the lowest:
    /// they name the first bytes to send again). At MTU 23 a value holds 20 bytes: one range.
    public func fitting(_ length: Int) -> Acknowledgement {
        var fitted = self
        fitted.spans = Array(spans.prefix(Self.spans(fitting: length)))
        return fitted
    }

    public func encode(into bytes: inout [UInt8]) {
        SessionFrame.appendHeader(.acknowledgement, to: &bytes)
        bytes.append(status.rawValue)
        bytes.append(session.value)
        appendLittleEndian(transfer.value, to: &bytes)
        appendLittleEndian(received, to: &bytes)
        for span in spans {
            appendLittleEndian(span.start, to: &bytes)
            appendLittleEndian(span.end, to: &bytes)
        }
    }

    public init(parsing bytes: some Collection<UInt8>) throws(SessionFrameError) {
        var reader = WireReader(bytes)
        try self.init(reading: &reader)
    }

    init(reading reader: inout WireReader) throws(SessionFrameError) {
        let length = reader.remaining
        try SessionFrame.begin(&reader, .acknowledgement, required: Self.headerLength)
        let extra = length - Self.headerLength
        guard extra % Self.spanLength == 0, extra / Self.spanLength <= Self.maximumSpans else {
            let expected = Self.headerLength + min(Self.maximumSpans, extra / Self.spanLength) * Self.spanLength
            throw .trailingBytes(.acknowledgement, length: length, expected: expected)
        }
        let raw = reader.uint8()
        guard let status = AcknowledgementStatus(rawValue: raw) else { throw .unknownStatus(raw) }
        self.status = status
        session = try SessionNumber.one(reader.uint8(), in: .acknowledgement)
        transfer = TransferID(reader.uint16())
        received = reader.uint32()
        var spans: [ByteSpan] = []
        var floor = received
        for _ in 0..<(extra / Self.spanLength) {
            let start = reader.uint32()
            let end = reader.uint32()
            guard start > floor, let span = ByteSpan(start: start, end: end) else { throw .badRanges }
            spans.append(span)
            floor = end
        }
        self.spans = spans
    }
}

/// Why a sender gave a message up (byte 2 of an abort).
public enum AbortReason: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// No acknowledgement moved the message forward for the delivery time-out.
    case noProgress = 0x01
    /// The user or the program stopped it.
    case cancelled = 0x02
    /// The sender could no longer read what it was sending (a file changed or vanished).
    case sourceFailed = 0x03

    public var description: String {
        switch self {
        case .noProgress: "no progress"
        case .cancelled: "cancelled"
        case .sourceFailed: "the sender could not read it"
        }
    }
}

/// A sender gave up a message: the receiver drops what it holds of it and expects the next one.
///
/// ```
/// 0     0xB2
/// 1     0x05 abort
/// 2     reason (AbortReason)
/// 3     session: from a central, its own; from the peripheral, the central's, or 255 (every central)
/// 4-5   transfer id, UInt16 LE
/// ```
public struct Abort: Sendable, Hashable {
    /// Bytes of an abort.
    public static let length = 6

    public var reason: AbortReason
    public var session: SessionNumber
    public var transfer: TransferID

    public init(reason: AbortReason, session: SessionNumber, transfer: TransferID) {
        self.reason = reason
        self.session = session
        self.transfer = transfer
    }

    public var encodedLength: Int { Self.length }

    public func encode(into bytes: inout [UInt8]) {
        SessionFrame.appendHeader(.abort, to: &bytes)
        bytes.append(reason.rawValue)
        bytes.append(session.value)
        appendLittleEndian(transfer.value, to: &bytes)
    }

    public init(parsing bytes: some Collection<UInt8>) throws(SessionFrameError) {
        var reader = WireReader(bytes)
        try self.init(reading: &reader)
    }

    init(reading reader: inout WireReader) throws(SessionFrameError) {
        let length = reader.remaining
        try SessionFrame.begin(&reader, .abort, required: Self.length)
        guard length == Self.length else { throw .trailingBytes(.abort, length: length, expected: Self.length) }
        let raw = reader.uint8()
        guard let reason = AbortReason(rawValue: raw) else { throw .unknownReason(raw) }
        self.reason = reason
        session = try SessionNumber.anyone(reader.uint8(), in: .abort)
        transfer = TransferID(reader.uint16())
    }
}
