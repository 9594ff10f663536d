import YrdenEngine
import YrdenHTTPServer

extension HTTPRequest {
    /// Who sent the request, for the bounds one client must not exhaust for the others: its `Authorization`,
    /// else its address.
    var clientKey: ClientKey? {
        ClientKey(authorization: headers["Authorization"], address: peer?.description)
    }
}
