/// The LocalName put in the advertisement, checked to fit.
///
/// BlueZ places LocalName in the scan response when legacy advertising is used.
/// A scan response carries 31 bytes; the complete-local-name AD structure spends
/// one length byte and one type byte, so the name may be at most 29 bytes of UTF-8.
/// A longer name would be truncated or refused by bluetoothd, so it is refused here
/// with a message saying why.
struct AdvertisedName: Equatable, Sendable, CustomStringConvertible {
    /// The name the original iPhone app advertises.
    static let `default` = AdvertisedName(unchecked: "sample")
    /// Legacy scan response payload minus the AD length and type bytes.
    static let maxUTF8Bytes = 31 - 2

    /// Why a name was refused.
    enum Invalid: Error, Equatable, CustomStringConvertible {
        case empty
        case tooLong(bytes: Int)
        case controlCharacter

        var description: String {
            switch self {
            case .empty:
                return "the advertised name must not be empty"
            case .tooLong(let bytes):
                return "the name is \(bytes) bytes of UTF-8 but a legacy advertisement's scan response "
                    + "holds at most \(AdvertisedName.maxUTF8Bytes) (31 bytes minus the 2-byte AD header); choose a shorter name"
            case .controlCharacter:
                return "the advertised name must not contain control characters"
            }
        }
    }

    let text: String

    init(_ text: String) throws(Invalid) {
        guard !text.isEmpty else { throw .empty }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .controlCharacter
        }
        let bytes = text.utf8.count
        guard bytes <= Self.maxUTF8Bytes else { throw .tooLong(bytes: bytes) }
        self.text = text
    }

    private init(unchecked text: String) { self.text = text }

    var description: String { text }
}
