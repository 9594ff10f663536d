import Testing
import YrdenProtocol

@testable import YrdenOAuth

/// CIMD: the spec's order of clients is a configured one, then a client ID metadata document where the
/// authorization server takes one, then dynamic registration.
@Suite struct ClientMetadataDocumentTests {
    static let documentURL = "https://gw.example.com/oauth/client.json"

    private static func configuration(clientID: String? = nil) -> OAuthSessionConfiguration {
        OAuthSessionConfiguration(
            serverID: "tasks",
            serverURL: Fixture.serverURL,
            redirectURI: Fixture.redirectURI,
            clientID: clientID,
            clientMetadataURL: documentURL
        )
    }

    @Test func theDocumentURLIsTheClientIDWhereTheServerTakesOne() async throws {
        let fixture = Fixture(metadata: ["client_id_metadata_document_supported": true])
        let session = try fixture.session(Self.configuration())
        let url = try await session.beginSignIn()
        #expect(queryParameters(url)["client_id"] == Self.documentURL)
        #expect(fixture.registrations.count == 0)
        #expect(!fixture.progress.statuses.contains("registering"))

        #expect(await fixture.returnFromBrowser(url) == .signedIn(serverID: "tasks"))
        let exchange = try #require(fixture.network.requests(to: Fixture.tokenURL).last)
        #expect(formFields(exchange)["client_id"] == Self.documentURL)
        #expect(exchange.header("Authorization") == nil)

        // A refresh is made as the same public client.
        fixture.clock.advance(3600)
        #expect(try await session.accessToken() == "access-2")
        let refresh = try #require(fixture.network.requests(to: Fixture.tokenURL).last)
        #expect(formFields(refresh)["grant_type"] == "refresh_token")
        #expect(formFields(refresh)["client_id"] == Self.documentURL)
    }

    @Test func aServerThatDoesNotAdvertiseItGetsADynamicRegistration() async throws {
        let fixture = Fixture()
        let session = try fixture.session(Self.configuration())
        let url = try await session.beginSignIn()
        #expect(fixture.registrations.count == 1)
        #expect(queryParameters(url)["client_id"] == "client-1")
    }

    @Test func aConfiguredClientComesFirst() async throws {
        let fixture = Fixture(metadata: ["client_id_metadata_document_supported": true])
        let session = try fixture.session(Self.configuration(clientID: "static"))
        let url = try await session.beginSignIn()
        #expect(queryParameters(url)["client_id"] == "static")
        #expect(fixture.registrations.count == 0)
    }

    @Test func withNeitherCIMDNorRegistrationTheErrorSaysBoth() async throws {
        let fixture = Fixture(metadata: ["registration_endpoint": nil])
        let session = try fixture.session(Self.configuration())
        let error = await #expect(throws: OAuthError.self) { try await session.beginSignIn() }
        #expect(error?.message.contains("takes no client ID metadata document") == true)
    }
}
