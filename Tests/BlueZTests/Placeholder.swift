import XCTest
final class BlueZTestsPlaceholder: XCTestCase { func testBuilds() {} }
