import XCTest
final class DBusTestsPlaceholder: XCTestCase { func testBuilds() {} }
