/// Servers' sign-ins are kept by the control layer and reached through ``UpstreamConnector/credentials``;
/// a removed server's pending sign-in is cancelled there (``UpstreamCredentials/forget(_:)``), so nothing is
/// left to do here.
final class OAuthSessions: Sendable {
    func remove(_ id: String) {}
}
