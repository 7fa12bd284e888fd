import Foundation
import RelayDBus
import RelayRuntime
import RelayTestSupport
import XCTest

extension EventLoop {
    /// Starts an asynchronous operation and runs the loop until it completes (or a generous
    /// safety limit passes, which gives `nil`: a hang, not a timing assertion).
    func wait<T>(_ start: (@escaping (T) -> Void) -> Void) -> T? {
        var result: T?
        start { result = $0 }
        run(until: { result != nil }, timeout: 20)
        return result
    }

    /// Calls a method and waits for its result.
    func call(
        _ connection: DBusConnection, _ destination: String, _ path: ObjectPath, _ interface: String?,
        _ method: String, _ arguments: [DBusValue] = [], timeout: Double = 25
    ) -> Result<[DBusValue], DBusError>? {
        wait { done in
            connection.call(
                destination: destination, path: path, interface: interface, method: method, arguments: arguments,
                timeout: timeout, reply: done)
        }
    }
}

/// The remote error of a failed result, if any.
func remoteError(_ result: Result<[DBusValue], DBusError>?) -> DBusRemoteError? {
    if case .failure(.remote(let error)) = result { return error }
    return nil
}
