import YrdenEngine
import YrdenHTTPServer

extension HTTPRequest {
    /// Who sent the request, for the bounds one client must not exhaust for the others: the principal
    /// `caller`'s token proved, else its `Authorization`, else its address (see ``ClientKey``).
    func clientKey(for caller: Caller) -> ClientKey? {
        ClientKey(caller: caller, authorization: headers["Authorization"], address: peer?.description)
    }
}
