import XCTest
final class RelayProtocolTestsPlaceholder: XCTestCase { func testBuilds() {} }
