import Testing

@testable import YrdenEngine

/// Who a client is for its bounds and its parked calls' tokens: the principal a token proved, not the token.
@Suite struct ClientKeyTests {
    static func user(_ name: String, token: String, _ how: Caller.Authentication = .accessToken) -> Caller {
        Caller(user: name, authentication: how, token: CallerToken(token))
    }

    @Test func aUsersRefreshedTokenIsTheSameClientAndAnotherUserIsNot() {
        let first = ClientKey(caller: Self.user("alice", token: "jwt-1"), authorization: "Bearer jwt-1", address: "a")
        let refreshed = ClientKey(
            caller: Self.user("alice", token: "jwt-2"),
            authorization: "Bearer jwt-2",
            address: "b"
        )
        let bob = ClientKey(caller: Self.user("bob", token: "jwt-3"), authorization: "Bearer jwt-3", address: "a")
        #expect(first == refreshed)
        #expect(first != bob)
        #expect(first?.description.hasPrefix("principal ") == true && first?.description.contains("alice") == false)
    }

    @Test func aStaticTokensHolderIsNeverAnIdentityProvidersUserOfTheSameName() {
        let byToken = ClientKey(
            caller: Self.user("x", token: "t", .clientToken),
            authorization: "Bearer t",
            address: nil
        )
        let byIssuer = ClientKey(caller: Self.user("x", token: "t"), authorization: "Bearer t", address: nil)
        #expect(byToken != byIssuer)
    }

    @Test func callersNothingProvedAreTheirCredentialOrAddress() {
        let anonymous = ClientKey(caller: .anonymous, authorization: nil, address: "10.0.0.1")
        #expect(anonymous == ClientKey(authorization: nil, address: "10.0.0.1"))
        let withHeader = ClientKey(caller: .anonymous, authorization: "Bearer whatever", address: "10.0.0.1")
        #expect(withHeader == ClientKey(authorization: "Bearer whatever", address: "10.0.0.2"))
        #expect(ClientKey(caller: .local, authorization: nil, address: nil) == nil)
        #expect(Caller.local.provenPrincipal == nil && Caller.anonymous.provenPrincipal == nil)
    }
}
