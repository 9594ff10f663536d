import YrdenEngine

/// Who may use a profile (`profiles.<name>.users` and `.groups`): a caller named in `users`, or in one of
/// `groups`. The admin token and the local stdio client may use every profile, as they may change it anyway.
package struct ProfileGrants: Sendable {
    let users: Set<String>
    let groups: Set<String>

    package init(users: [String], groups: [String]) {
        self.users = Set(users)
        self.groups = Set(groups)
    }

    package func permits(_ caller: Caller) -> Bool {
        switch caller.authentication {
        case .adminToken, .local: return true
        case .none: return false
        case .clientToken, .accessToken:
            return users.contains(caller.user) || caller.groups.contains(where: groups.contains)
        }
    }
}
