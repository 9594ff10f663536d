/// A request: expects exactly one response with the same id.
package struct JSONRPCRequest: Sendable, Hashable {
    package var id: JSONRPCID
    package var method: String
    package var params: JSONValue?

    package init(id: JSONRPCID, method: String, params: JSONValue? = nil) {
        self.id = id
        self.method = method
        self.params = params
    }
}

/// A notification: no id, never answered.
package struct JSONRPCNotification: Sendable, Hashable {
    package var method: String
    package var params: JSONValue?

    package init(method: String, params: JSONValue? = nil) {
        self.method = method
        self.params = params
    }
}

/// A response: a result or an error. The id is absent when the request's own id could not be read.
package struct JSONRPCResponse: Sendable, Hashable {
    package var id: JSONRPCID?
    package var outcome: Result<JSONValue, JSONRPCError>
    /// The successful result already serialized, written in its place: a page of the merged lists, which
    /// every client asks for, is serialized once per catalog generation rather than once per request. It
    /// must be the compact serialization of the result; equality and hashing look at `outcome` only.
    package var encodedResult: EncodedJSON?

    package init(id: JSONRPCID?, outcome: Result<JSONValue, JSONRPCError>) {
        self.id = id
        self.outcome = outcome
    }

    package static func == (lhs: JSONRPCResponse, rhs: JSONRPCResponse) -> Bool {
        lhs.id == rhs.id && lhs.outcome == rhs.outcome
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(outcome)
    }

    package init(id: JSONRPCID?, result: JSONValue) {
        self.init(id: id, outcome: .success(result))
    }

    package init(id: JSONRPCID?, error: JSONRPCError) {
        self.init(id: id, outcome: .failure(error))
    }
}

/// Any JSON-RPC 2.0 message.
package enum JSONRPCMessage: Sendable, Hashable {
    case request(JSONRPCRequest)
    case notification(JSONRPCNotification)
    case response(JSONRPCResponse)
}

extension JSONRPCMessage {
    /// Classifies a parsed JSON value, or throws -32600 saying what is wrong with it.
    package init(_ value: JSONValue) throws(JSONRPCError) {
        guard case .object(let object) = value else {
            throw .invalidRequest("a message must be a JSON object, found \(value.typeName)")
        }
        guard object["jsonrpc"] == .string("2.0") else { throw .invalidRequest("\"jsonrpc\" must be \"2.0\"") }
        let params = object["params"]
        if let params, params.objectValue == nil, params.arrayValue == nil {
            throw .invalidRequest("\"params\" must be an object or an array")
        }
        if let method = object["method"] {
            guard case .string(let name) = method else { throw .invalidRequest("\"method\" must be a string") }
            guard let rawID = object["id"] else {
                self = .notification(JSONRPCNotification(method: name, params: params))
                return
            }
            guard let id = JSONRPCID(rawID) else { throw .invalidRequest("\"id\" must be a string or an integer") }
            self = .request(JSONRPCRequest(id: id, method: name, params: params))
            return
        }
        let id = object["id"].flatMap(JSONRPCID.init)
        if let result = object["result"] {
            self = .response(JSONRPCResponse(id: id, result: result))
        } else if let errorValue = object["error"], let error = JSONRPCError(errorValue) {
            self = .response(JSONRPCResponse(id: id, error: error))
        } else {
            throw .invalidRequest("a message needs \"method\", \"result\" or \"error\"")
        }
    }

    /// The id of a message that carries one, for error replies to requests that failed validation.
    package static func bestEffortID(_ value: JSONValue) -> JSONRPCID? {
        value["id"].flatMap(JSONRPCID.init)
    }

    package var json: JSONValue {
        var object: JSONObject = ["jsonrpc": "2.0"]
        switch self {
        case .request(let request):
            object["id"] = request.id.json
            object["method"] = .string(request.method)
            if let params = request.params { object["params"] = params }
        case .notification(let notification):
            object["method"] = .string(notification.method)
            if let params = notification.params { object["params"] = params }
        case .response(let response):
            object["id"] = response.id?.json ?? .null
            switch response.outcome {
            case .success(let result): object["result"] = result
            case .failure(let error): object["error"] = error.json
            }
        }
        return .object(object)
    }

    package func serialized() -> [UInt8] {
        var output = JSONOutput(capacity: outputCapacity)
        write(to: &output)
        return output.bytes()
    }

    /// Appends the compact JSON of the message to `bytes`.
    package func write(into bytes: inout [UInt8]) {
        var output = JSONOutput(capacity: outputCapacity)
        write(to: &output)
        output.append(to: &bytes)
    }

    /// Room for the whole message at once when its result is already bytes (a page of a merged list, which
    /// would otherwise grow the buffer by doubling, copying each time).
    private var outputCapacity: Int {
        guard case .response(let response) = self, let encoded = response.encodedResult else { return 256 }
        return encoded.bytes.count + 64
    }

    /// The envelope written straight into the output, the same bytes as ``json`` serialized: building that
    /// object first cost an allocation per member on every message forwarded. A response's encoded result is
    /// copied, not serialized again.
    func write(to output: inout JSONOutput) {
        output.append(#"{"jsonrpc":"2.0""#)
        switch self {
        case .request(let request):
            output.append(#","id":"#)
            request.id.json.write(to: &output)
            output.append(#","method":"#)
            JSONValue.writeString(request.method, to: &output)
            Self.writeMember(#","params":"#, request.params, to: &output)
        case .notification(let notification):
            output.append(#","method":"#)
            JSONValue.writeString(notification.method, to: &output)
            Self.writeMember(#","params":"#, notification.params, to: &output)
        case .response(let response):
            output.append(#","id":"#)
            (response.id?.json ?? .null).write(to: &output)
            switch response.outcome {
            case .success(let result):
                output.append(#","result":"#)
                if let encoded = response.encodedResult {
                    encoded.bytes.withUnsafeBufferPointer { output.append($0) }
                } else {
                    result.write(to: &output)
                }
            case .failure(let error):
                Self.writeMember(#","error":"#, error.json, to: &output)
            }
        }
        output.append(UInt8(ascii: "}"))
    }

    private static func writeMember(_ prefix: StaticString, _ value: JSONValue?, to output: inout JSONOutput) {
        guard let value else { return }
        output.append(prefix)
        value.write(to: &output)
    }
}

/// Bytes known to be one compact JSON value, as ``JSONValue/serialized()`` wrote it.
package struct EncodedJSON: Sendable {
    package let bytes: [UInt8]

    package init(_ value: JSONValue) {
        bytes = value.serialized()
    }
}

extension JSONRPCRequest {
    package var message: JSONRPCMessage { .request(self) }
}

extension JSONRPCNotification {
    package var message: JSONRPCMessage { .notification(self) }
}

extension JSONRPCResponse {
    package var message: JSONRPCMessage { .response(self) }
}
