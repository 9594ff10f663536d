import Glibc
import Testing

@testable import YrdenTransport

/// Which processes are a server's tree: its session and group, and every descendant of those, helpers that
/// started a session of their own included; nothing of another tree.
@Suite struct ProcessTreeTests {
    private static func identity(parent: Int32, group: Int32, session: Int32) -> ProcessTree.Identity {
        ProcessTree.Identity(parent: parent, group: group, session: session, started: 1)
    }

    @Test func aTreeHoldsItsGroupItsSessionAndEveryDescendant() {
        let all: [Int32: ProcessTree.Identity] = [
            10: Self.identity(parent: 1, group: 10, session: 10),  // the server, a zombie at the crash
            11: Self.identity(parent: 10, group: 10, session: 10),  // its helper
            12: Self.identity(parent: 11, group: 12, session: 12),  // the helper's setsid child
            13: Self.identity(parent: 1, group: 10, session: 10),  // a helper already reparented (subreaper)
            14: Self.identity(parent: 13, group: 14, session: 14),  // its setsid child
            15: Self.identity(parent: 14, group: 14, session: 14),  // and that one's child
            16: Self.identity(parent: 1, group: 16, session: 10),  // a job of the server's session, own group
            20: Self.identity(parent: 1, group: 20, session: 20),  // another server
            21: Self.identity(parent: 20, group: 20, session: 20),
        ]
        let members = Set(ProcessTree.members(of: 10, in: all).map(\.pid))
        #expect(members == [10, 11, 12, 13, 14, 15, 16])
    }

    @Test func theStatLineOfThisProcessIsRead() throws {
        let identity = try #require(ProcessTree.identity(of: getpid()))
        #expect(identity.parent == getppid())
        #expect(identity.group == getpgrp())
        #expect(identity.started > 0)
    }
}
