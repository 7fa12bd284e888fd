/// The frame types of protocol version 2 (byte 1 of every session frame).
public enum SessionFrameType: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// A central introduces itself (central to peripheral).
    case hello = 0x01
    /// The peripheral answers a hello (peripheral to central).
    case welcome = 0x02
    /// Bytes of a message stream.
    case data = 0x03
    /// What a receiver holds of a message.
    case acknowledgement = 0x04
    /// A sender gave up a message.
    case abort = 0x05

    /// The type's name, lower case.
    public var description: String {
        switch self {
        case .hello: "hello"
        case .welcome: "welcome"
        case .data: "data"
        case .acknowledgement: "acknowledgement"
        case .abort: "abort"
        }
    }
}

/// A version-2 frame: any value on the session characteristic that is not a 4-byte counter
/// (docs/protocol.md, "Version 2"). Byte 0 is `0xB2`, byte 1 the type.
public enum SessionFrame: Sendable, Hashable {
    case hello(Hello)
    case welcome(Welcome)
    case data(DataFrame)
    case acknowledgement(Acknowledgement)
    case abort(Abort)

    /// This frame cut to a value of at most `length` bytes where it can be: an acknowledgement
    /// keeps the ranges that fit, a welcome drops its optional MTU when that does not fit; every
    /// other control frame fits any MTU (at most 20 bytes written, 18 notified).
    public func fitting(_ length: Int) -> SessionFrame {
        switch self {
        case .acknowledgement(let ack): return .acknowledgement(ack.fitting(length))
        case .welcome(var welcome) where welcome.encodedLength > length:
            // Without its optional MTU (18 bytes fit every link): that central then writes 20-byte values.
            welcome.mtu = nil
            return .welcome(welcome)
        default: return self
        }
    }

    /// Byte 0 of every session frame: the relay marker `0xB` and version 2.
    public static let markerByte: UInt8 = 0xB2
    /// The protocol version the session characteristic speaks.
    public static let version: UInt8 = 2
    /// The highest version this implementation speaks: 3, which is version 2 with compact data
    /// frames (`CompactDataFrame`). Both are protocol 2 to users.
    public static let highestVersion: UInt8 = 3

    /// The frame's type.
    public var type: SessionFrameType {
        switch self {
        case .hello: .hello
        case .welcome: .welcome
        case .data: .data
        case .acknowledgement: .acknowledgement
        case .abort: .abort
        }
    }

    /// The number of bytes `encode(into:)` appends.
    public var encodedLength: Int {
        switch self {
        case .hello(let frame): frame.encodedLength
        case .welcome(let frame): frame.encodedLength
        case .data(let frame): frame.encodedLength
        case .acknowledgement(let frame): frame.encodedLength
        case .abort(let frame): frame.encodedLength
        }
    }

    /// Appends the frame's bytes to `bytes`.
    public func encode(into bytes: inout [UInt8]) {
        switch self {
        case .hello(let frame): frame.encode(into: &bytes)
        case .welcome(let frame): frame.encode(into: &bytes)
        case .data(let frame): frame.encode(into: &bytes)
        case .acknowledgement(let frame): frame.encode(into: &bytes)
        case .abort(let frame): frame.encode(into: &bytes)
        }
    }

    /// The frame's bytes, ready to be written or notified.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encodedLength)
        encode(into: &bytes)
        return bytes
    }

    /// Parses a received value (not a counter) as a session frame.
    public init(parsing bytes: some Collection<UInt8>) throws(SessionFrameError) {
        var reader = WireReader(bytes)
        let type = try Self.header(&reader)
        reader = WireReader(bytes)
        switch type {
        case .hello: self = .hello(try Hello(reading: &reader))
        case .welcome: self = .welcome(try Welcome(reading: &reader))
        case .data: self = .data(try DataFrame(reading: &reader))
        case .acknowledgement: self = .acknowledgement(try Acknowledgement(reading: &reader))
        case .abort: self = .abort(try Abort(reading: &reader))
        }
    }

    /// Reads and checks bytes 0 and 1.
    static func header(_ reader: inout WireReader) throws(SessionFrameError) -> SessionFrameType {
        guard reader.remaining >= 1 else { throw .notSessionFrame(firstByte: 0) }
        let marker = reader.uint8()
        guard marker == markerByte else { throw .notSessionFrame(firstByte: marker) }
        guard reader.remaining >= 1 else { throw .unknownType(0) }
        let raw = reader.uint8()
        guard let type = SessionFrameType(rawValue: raw) else { throw .unknownType(raw) }
        return type
    }

    /// Reads bytes 0 and 1, which must say `type`, and checks the value holds `required` bytes.
    static func begin(
        _ reader: inout WireReader, _ type: SessionFrameType, required: Int
    ) throws(SessionFrameError) {
        let length = reader.remaining
        let got = try header(&reader)
        guard got == type else { throw .wrongType(expected: type, got: got) }
        guard length >= required else { throw .truncated(type, length: length, required: required) }
    }

    static func appendHeader(_ type: SessionFrameType, to bytes: inout [UInt8]) {
        bytes.append(markerByte)
        bytes.append(type.rawValue)
    }
}

/// A central introduces itself to a peripheral that offers the session characteristic (the first
/// thing it writes there, on every connection).
///
/// ```
/// 0     0xB2
/// 1     0x01 hello
/// 2     version: the highest version the central speaks (3: 2 with compact data frames; below 2 is refused)
/// 3     flags: reserved, 0
/// 4-7   the central's token, UInt32 LE (not 0)
/// 8-13  the central's adapter address, as written (AA first)
/// 14-17 receive window: message bytes the central holds beyond a gap, UInt32 LE
/// 18-19 the transfer id of the next message the central sends this peripheral, UInt16 LE
/// ```
/// 20 bytes: a hello fits the smallest MTU. Later versions may append fields; they are ignored.
public struct Hello: Sendable, Hashable {
    /// Bytes of a hello.
    public static let length = 20

    public var version: UInt8
    public var token: SessionToken
    public var address: BluetoothAddress
    public var window: UInt32
    public var next: TransferID

    public init(
        version: UInt8 = SessionFrame.highestVersion, token: SessionToken, address: BluetoothAddress, window: UInt32,
        next: TransferID
    ) {
        self.version = version
        self.token = token
        self.address = address
        self.window = window
        self.next = next
    }

    public var encodedLength: Int { Self.length }

    public func encode(into bytes: inout [UInt8]) {
        SessionFrame.appendHeader(.hello, to: &bytes)
        bytes.append(version)
        bytes.append(0)
        appendLittleEndian(token.value, to: &bytes)
        bytes.append(contentsOf: address.bytes)
        appendLittleEndian(window, to: &bytes)
        appendLittleEndian(next.value, to: &bytes)
    }

    public init(parsing bytes: some Collection<UInt8>) throws(SessionFrameError) {
        var reader = WireReader(bytes)
        try self.init(reading: &reader)
    }

    init(reading reader: inout WireReader) throws(SessionFrameError) {
        try SessionFrame.begin(&reader, .hello, required: Self.length)
        version = reader.uint8()
        // The highest version the central speaks: 2 or later (a later central meets this one at 2).
        guard version >= SessionFrame.version else { throw .unsupportedVersion(.hello, version) }
        let flags = reader.uint8()
        guard flags == 0 else { throw .reservedBits(.hello, flags) }
        guard let token = SessionToken(reader.uint32()) else { throw .zeroToken(.hello) }
        self.token = token
        address = BluetoothAddress(bytes: reader.take(6))!
        window = reader.uint32()
        next = TransferID(reader.uint16())
    }
}

/// The peripheral's answer to a hello, notified on the session characteristic (every central
/// subscribed there sees it; the one whose token it echoes takes it).
///
/// ```
/// 0     0xB2
/// 1     0x02 welcome
/// 2     version both speak: the lower of the hello's and the peripheral's (2 or 3)
/// 3     session number the peripheral gives this central (1-254)
/// 4-7   the central's token, echoed, UInt32 LE
/// 8-11  the peripheral's token, UInt32 LE (not 0)
/// 12-15 receive window of the peripheral, UInt32 LE
/// 16-17 the transfer id of the next message the peripheral sends this central, UInt16 LE
/// 18-19 optional: the ATT MTU of this central's link as the peripheral's bluetoothd gives it,
///       UInt16 LE (absent when unknown; a central that cannot read its MTU, a browser, sizes
///       its writes by it)
/// ```
/// 18 bytes, or 20 with the MTU. Later versions may append fields; they are ignored.
public struct Welcome: Sendable, Hashable {
    /// Bytes of a welcome without the MTU.
    public static let length = 18
    /// Bytes of a welcome with the MTU.
    public static let lengthWithMTU = 20

    public var version: UInt8
    public var session: SessionNumber
    public var central: SessionToken
    public var peripheral: SessionToken
    public var window: UInt32
    public var next: TransferID
    /// The ATT MTU of the central's link as the peripheral sees it, when it knows it (bytes 18-19).
    public var mtu: MTU?

    public init(
        version: UInt8 = SessionFrame.version, session: SessionNumber, central: SessionToken,
        peripheral: SessionToken, window: UInt32, next: TransferID, mtu: MTU? = nil
    ) {
        self.version = version
        self.session = session
        self.central = central
        self.peripheral = peripheral
        self.window = window
        self.next = next
        self.mtu = mtu
    }

    public var encodedLength: Int { mtu == nil ? Self.length : Self.lengthWithMTU }

    public func encode(into bytes: inout [UInt8]) {
        SessionFrame.appendHeader(.welcome, to: &bytes)
        bytes.append(version)
        bytes.append(session.value)
        appendLittleEndian(central.value, to: &bytes)
        appendLittleEndian(peripheral.value, to: &bytes)
        appendLittleEndian(window, to: &bytes)
        appendLittleEndian(next.value, to: &bytes)
        if let mtu { appendLittleEndian(UInt16(mtu.value), to: &bytes) }
    }

    public init(parsing bytes: some Collection<UInt8>) throws(SessionFrameError) {
        var reader = WireReader(bytes)
        try self.init(reading: &reader)
    }

    init(reading reader: inout WireReader) throws(SessionFrameError) {
        try SessionFrame.begin(&reader, .welcome, required: Self.length)
        version = reader.uint8()
        // The version both speak: this implementation's hello said 3, so 2 or 3.
        guard (SessionFrame.version...SessionFrame.highestVersion).contains(version) else {
            throw .unsupportedVersion(.welcome, version)
        }
        session = try SessionNumber.one(reader.uint8(), in: .welcome)
        guard let central = SessionToken(reader.uint32()), let peripheral = SessionToken(reader.uint32()) else {
            throw .zeroToken(.welcome)
        }
        self.central = central
        self.peripheral = peripheral
        window = reader.uint32()
        next = TransferID(reader.uint16())
        // An MTU outside 23...517 is no MTU: taken as unknown, as an 18-byte welcome's.
        mtu = reader.remaining >= 2 ? MTU(Int(reader.uint16())) : nil
    }
}

extension SessionNumber {
    /// The session of one central: 1-254.
    static func one(_ value: UInt8, in type: SessionFrameType) throws(SessionFrameError) -> SessionNumber {
        guard SessionNumber.assignable.contains(value), let session = SessionNumber(value) else {
            throw .invalidSession(type, value)
        }
        return session
    }

    /// One central's session, or `everyone` (255).
    static func anyone(_ value: UInt8, in type: SessionFrameType) throws(SessionFrameError) -> SessionNumber {
        guard value != 0, let session = SessionNumber(value) else { throw .invalidSession(type, value) }
        return session
    }
}

/// A value received on the session characteristic, classified: a 4-byte counter, a compact data
/// frame (first byte 0xC0-0xFF) or a session frame.
public enum SessionValue: Sendable, Hashable {
    case counter(Counter)
    case compact(CompactDataFrame)
    case frame(SessionFrame)

    /// Classifies and parses a value of the session characteristic.
    public init(parsing bytes: some Collection<UInt8>) throws(SessionFrameError) {
        if bytes.count == Counter.encodedLength, let counter = try? Counter(parsing: bytes) {
            self = .counter(counter)
        } else if let first = bytes.first, CompactDataFrame.isCompact(firstByte: first) {
            self = .compact(try CompactDataFrame(parsing: bytes))
        } else {
            self = .frame(try SessionFrame(parsing: bytes))
        }
    }
}
