import Testing
import YrdenConfig
import YrdenControl
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

@testable import YrdenFront

@Suite struct AdminProblemTests {
    @Test func aProblemIsAnRFC9457Document() throws {
        let problem = AdminProblem.invalid(
            [ConfigProblem(path: "mcpServers.time.command", message: "missing", fix: "add it")],
            title: "Invalid server entry",
            subject: "server entry"
        )
        let response = problem.response
        #expect(response.status == 400)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        guard case .bytes(let body) = response.body else {
            Issue.record("a problem is not streamed")
            return
        }
        let json = try JSONValue.parse(body)
        #expect(json["title"] == "Invalid server entry")
        #expect(json["status"] == 400)
        #expect(json["detail"] == "The server entry has 1 problem.")
        #expect(json["errors"] == [["path": "mcpServers.time.command", "message": "missing", "fix": "add it"]])
    }

    @Test func aStaleVersionIs412WithTheCurrentETag() {
        let problem = AdminProblem(.versionMismatch(current: #""e-7""#), title: "Invalid config", subject: "config")
        #expect(problem.status == 412)
        #expect(problem.headers["ETag"] == #""e-7""#)
        #expect(problem.detail.hasPrefix("the config changed since it was read"))
    }

    @Test func aStopPastTheLimitIs504SayingWhatItWaitedFor() {
        let late = LateStop(servers: ["x"], limit: .seconds(10), restarting: false)
        let problem = AdminProblem(.stillStopping(late), title: "Invalid server entry", subject: "server entry")
        #expect(problem.status == 504)
        #expect(
            problem.detail
                == "server 'x' did not stop within 10 s; it is being stopped in the background. "
                + "The change is saved and applied."
        )
        let two = LateStop(servers: ["a", "b"], limit: .milliseconds(250), restarting: true)
        #expect(
            two.description
                == "servers 'a', 'b' did not stop within 250 ms; they are being stopped in the background and "
                + "start again once they have. The change is saved and applied."
        )
    }

    @Test func aFullChangeQueueIs503WithRetryAfter() {
        let problem = AdminProblem(.busy("256 config changes are already waiting"), title: "t", subject: "config")
        #expect(problem.status == 503)
        #expect(problem.headers["Retry-After"] == "1")
    }

    @Test func withoutErrorsThereIsNoErrorsMember() {
        #expect(AdminProblem.notFound("nothing here").json["errors"] == nil)
    }

    @Test func unauthorizedNamesTheScheme() {
        #expect(AdminProblem.unauthorized(tokenSent: false).headers["WWW-Authenticate"] == "Bearer")
        #expect(
            AdminProblem.unauthorized(tokenSent: true).headers["WWW-Authenticate"] == #"Bearer error="invalid_token""#
        )
    }

    @Test func methodNotAllowedListsTheAllowedMethods() {
        let problem = AdminProblem.methodNotAllowed("DELETE", allowed: ["GET", "POST"])
        #expect(problem.status == 405)
        #expect(problem.headers["Allow"] == "GET, POST")
    }

    @Test func storeErrorsMapToTheirStatus() {
        func status(_ error: ConfigStoreError) -> Int { AdminProblem(error, title: "t", subject: "s").status }
        #expect(status(.invalid(ConfigError(source: "admin API", problems: []))) == 400)
        #expect(status(.unknownServer("a")) == 404)
        #expect(status(.duplicateServer("a")) == 409)
        #expect(status(.conflict("no")) == 409)
        #expect(status(.storage("disk full")) == 500)
        #expect(
            AdminProblem(.storage("could not save: disk full"), title: "t", subject: "s").detail.contains("disk full")
        )
    }

    @Test func aRefusedGatewaySettingIsNamedInErrors() {
        let problem = AdminProblem(
            .conflict("gateway.listen cannot change while the gateway runs; edit the file and restart it"),
            title: "t",
            subject: "config"
        )
        #expect(
            problem.errors == [
                ConfigProblem(
                    path: "gateway.listen",
                    message: "gateway.listen cannot change while the gateway runs",
                    fix: "edit the file and restart it"
                )
            ]
        )
        #expect(AdminProblem(.conflict("server x is disabled"), title: "t", subject: "s").errors.isEmpty)
    }

    @Test func aNewServerBodyIsCheckedForShape() {
        #expect(throws: Never.self) {
            let (id, entry) = try NewServerRequest.parse(["id": "time", "config": ["command": "uvx"]])
            #expect(id == "time")
            #expect(entry == ["command": "uvx"])
        }
        do {
            _ = try NewServerRequest.parse(["name": "time", "id": 5])
            Issue.record("accepted a bad body")
        } catch {
            #expect(error.errors.map(\.path) == ["name", "id", "config"])
        }
        #expect(throws: AdminProblem.self) { try NewServerRequest.parse(["time"]) }
    }

    @Test func aBadIdOfANewServerIsTheRequestsIdProblem() {
        let refused = ConfigStoreError.invalid(
            ConfigError(
                source: "admin API",
                problems: [
                    ConfigProblem(
                        path: #"mcpServers["Bad Id"]"#,
                        message: #"server id "Bad Id" is not valid"#,
                        fix: "f"
                    ),
                    ConfigProblem(path: #"mcpServers["Bad Id"].comand"#, message: #"unknown key "comand""#, fix: "g"),
                ]
            )
        )
        let problem = NewServerRequest.refused(refused)
        #expect(problem.errors.map(\.path) == ["id", #"mcpServers["Bad Id"].comand"#])
    }

    @Test func mediaTypesIgnoreParametersAndCase() {
        #expect(AdminRequestBody.mediaType(of: "application/json; charset=utf-8") == "application/json")
        #expect(AdminRequestBody.mediaType(of: "Application/JSON") == "application/json")
        #expect(AdminRequestBody.mediaType(of: nil) == nil)
        #expect(AdminRequestBody.mediaType(of: "") == nil)
    }

    @Test func bodiesMustBeSentAsTheOperationsMediaType() {
        let json = HTTPRequest(
            method: "PUT",
            path: "/",
            headers: ["Content-Type": "application/json"],
            body: Array("{}".utf8)
        )
        #expect((try? AdminRequestBody.parse(json, as: AdminRequestBody.json).get()) == .object(JSONObject()))
        #expect(throws: AdminProblem.self) { try AdminRequestBody.parse(json, as: AdminRequestBody.mergePatch).get() }
        let text = HTTPRequest(
            method: "PUT",
            path: "/",
            headers: ["Content-Type": "text/plain"],
            body: Array("{}".utf8)
        )
        do {
            _ = try AdminRequestBody.parse(text, as: AdminRequestBody.json).get()
        } catch {
            #expect(error.status == 415)
        }
        let broken = HTTPRequest(
            method: "PUT",
            path: "/",
            headers: ["Content-Type": "application/json"],
            body: Array("{".utf8)
        )
        do {
            _ = try AdminRequestBody.parse(broken, as: AdminRequestBody.json).get()
        } catch {
            #expect(error.status == 400)
            #expect(error.errors.isEmpty)
        }
    }
}
