import RelayREPL
import XCTest

@testable import RelayApp

extension StubSession.Problem: Error {}

/// `PendingCommands` and `CommandStart` on their own: when a command ends, the one rule for a
/// command that sends (`Audience`), and failing many at once in the order they came.
final class PendingCommandsTests: XCTestCase {
    typealias Action = StubSession.Action
    typealias Start = CommandStart<Action, String>

    private let queued: [Action] = [.call("queue", CommandToken(0))]

    func testACommandForTheRoomEndsOnceQueuedAndOneForAPeerWhenWhatItSentHasGone() {
        var commands = PendingCommands<String>()
        let room: Result<Start, StubSession.Problem> = .success(.sending(queued, to: .room))
        XCTAssertEqual(commands.begin(CommandToken(1), room), queued + [.finish(CommandToken(1), nil)])
        XCTAssertFalse(commands.isWaiting(for: "message 1"))

        let peer: Result<Start, StubSession.Problem> = .success(.sending(queued, to: .peer("message 2")))
        XCTAssertEqual(commands.begin(CommandToken(2), peer), queued, "not finished while its message is on its way")
        XCTAssertTrue(commands.isWaiting(for: "message 2"))
        XCTAssertEqual(commands.finish("message 2", nil) as [Action], [.finish(CommandToken(2), nil)])
        XCTAssertEqual(commands.finish("message 2", nil) as [Action], [], "finished once")
    }

    func testARefusedCommandEndsWithItsProblemAndNothingWaits() {
        var commands = PendingCommands<String>()
        let refused: Result<Start, StubSession.Problem> = .failure(StubSession.Problem(description: "not ready"))
        XCTAssertEqual(
            commands.begin(CommandToken(3), refused),
            [.finish(CommandToken(3), StubSession.Problem(description: "not ready"))])
        XCTAssertFalse(commands.isWaiting(for: "message 3"))
    }

    func testFailingManyAtOnceFinishesThemInTheOrderTheyCameAndLeavesTheRest() {
        var commands = PendingCommands<String>()
        for (token, awaited) in [(5, "link: read"), (6, "scan"), (7, "link: message 1")] {
            _ = commands.begin(CommandToken(token), .success(Start.waiting(for: awaited, [])))
        }
        let lost = StubSession.Problem(description: "the link went")
        let ended: [Action] = commands.finishAll(where: { $0.hasPrefix("link") }, { _ in lost })
        XCTAssertEqual(ended, [.finish(CommandToken(5), lost), .finish(CommandToken(7), lost)])
        XCTAssertTrue(commands.isWaiting(for: "scan"))
        XCTAssertFalse(commands.isWaiting(for: "link: read"))
    }
}
