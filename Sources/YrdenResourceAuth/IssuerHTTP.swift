import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// The HTTP the gateway sends its access tokens' issuer: GETs of its metadata and key set, and introspection
/// POSTs. A closure so tests script the issuer; ``live(client:timeout:maxBodyBytes:)`` is AsyncHTTPClient, whose
/// own event loop does the I/O, off the gateway's.
package struct IssuerHTTP: Sendable {
    package struct Request: Sendable {
        package var url: String
        /// A form body (POST); `nil`: a GET.
        package var form: [(String, String)]?
        /// `Authorization` to send, if any.
        package var authorization: String?

        package init(url: String, form: [(String, String)]? = nil, authorization: String? = nil) {
            self.url = url
            self.form = form
            self.authorization = authorization
        }
    }

    package let send: @Sendable (Request) async throws -> (status: Int, body: [UInt8])

    package init(send: @escaping @Sendable (Request) async throws -> (status: Int, body: [UInt8])) {
        self.send = send
    }

    /// Over `client`, each request within `timeout`, answers longer than `maxBodyBytes` refused.
    package static func live(
        client: HTTPClient,
        timeout: Duration = .seconds(5),
        maxBodyBytes: Int = 1 << 20
    ) -> IssuerHTTP {
        IssuerHTTP { request in
            var outgoing = HTTPClientRequest(url: request.url)
            outgoing.headers.add(name: "Accept", value: "application/json")
            if let authorization = request.authorization {
                outgoing.headers.add(name: "Authorization", value: authorization)
            }
            if let form = request.form {
                outgoing.method = .POST
                outgoing.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                outgoing.body = .bytes(ByteBuffer(string: FormBody.encode(form)))
            }
            let (seconds, attoseconds) = timeout.components
            let deadline = NIODeadline.now() + .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
            let response = try await client.execute(outgoing, deadline: deadline)
            let body = try await response.body.collect(upTo: maxBodyBytes)
            return (Int(response.status.code), Array(body.readableBytesView))
        }
    }
}

/// `application/x-www-form-urlencoded`, every byte outside RFC 3986's unreserved set escaped.
enum FormBody {
    static func encode(_ parameters: [(String, String)]) -> String {
        parameters.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    static func escape(_ value: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.append(byte)
            default:
                output += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
