import NIOSSL

/// The certificates every upstream TLS connection (`https://`, `wss://`) is verified against: the system's
/// bundle, or the PEM file `SSL_CERT_FILE` names instead (OpenSSL's convention), for servers behind a private CA.
///
/// Made once at start, so a file that is missing or holds no certificate stops the start with its name
/// instead of failing every connection later, and no connection reads files.
package struct UpstreamTrust: Sendable {
    package static let variable = "SSL_CERT_FILE"

    /// The PEM bundle that replaces the system's, when `SSL_CERT_FILE` is set.
    package let caFile: String?
    /// The client context `wss://` connections and pooled `https://` POSTs share.
    package let webSocketContext: NIOSSLContext

    package init(environment: [String: String]) throws(UpstreamTrustError) {
        caFile = environment[Self.variable].flatMap { $0.isEmpty ? nil : $0 }
        do {
            webSocketContext = try NIOSSLContext(configuration: Self.configuration(caFile: caFile))
            if let caFile, try NIOSSLCertificate.fromPEMFile(caFile).isEmpty {
                throw UpstreamTrustError(message: "\(Self.variable)=\(caFile) holds no PEM certificate")
            }
        } catch let error as UpstreamTrustError {
            throw error
        } catch {
            throw UpstreamTrustError(
                message: "\(Self.variable)=\(caFile ?? "") cannot be read as PEM certificates (\(error)); "
                    + "name a readable PEM bundle of the CAs to trust, or unset it to trust the system's"
            )
        }
    }

    /// What AsyncHTTPClient verifies upstream servers with.
    package var tlsConfiguration: TLSConfiguration { Self.configuration(caFile: caFile) }

    private static func configuration(caFile: String?) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let caFile { configuration.trustRoots = .file(caFile) }
        return configuration
    }
}

/// `SSL_CERT_FILE` names no usable bundle.
package struct UpstreamTrustError: Error, CustomStringConvertible {
    package let message: String
    package var description: String { message }
}
