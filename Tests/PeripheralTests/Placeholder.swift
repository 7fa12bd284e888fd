import XCTest
final class PeripheralTestsPlaceholder: XCTestCase { func testBuilds() {} }
