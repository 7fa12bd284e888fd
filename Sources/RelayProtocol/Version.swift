public enum RelayProtocolVersion { public static let current: UInt8 = 1 }
