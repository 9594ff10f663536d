/// The `ui://demo/dashboard` view: one self-contained HTML5 document with inline style and script only, so it
/// runs under the host's restrictive default CSP. It performs the MCP Apps handshake with its host over
/// `postMessage`, shows the `structuredContent` of the tool result it is sent, and calls `add` through the host
/// when its button is pressed (the host forwards the call to this server and hands the result back).
enum DashboardPage {
    static let html = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>Yrden demo dashboard</title>
        <style>
          body { font-family: system-ui, sans-serif; margin: 1rem; }
          .tiles { display: flex; gap: 1rem; }
          .tile { border: 1px solid #ccc; border-radius: 8px; padding: 0.75rem 1rem; min-width: 8rem; }
          .label { font-size: 0.8rem; color: #666; }
          .value { font-size: 1.6rem; font-weight: 600; }
          form { margin-top: 1rem; display: flex; gap: 0.5rem; align-items: center; }
          input { width: 4rem; }
        </style>
        </head>
        <body>
        <h1>Demo dashboard</h1>
        <div class="tiles">
          <div class="tile"><div class="label">Visits</div><div class="value" id="visits">–</div></div>
          <div class="tile"><div class="label">Status</div><div class="value" id="status">waiting</div></div>
        </div>
        <form id="adder">
          <input id="a" type="number" value="2" aria-label="a"> +
          <input id="b" type="number" value="3" aria-label="b">
          <button id="add" type="submit">Add through the host</button>
          <output id="sum" aria-live="polite"></output>
        </form>
        <script>
          let nextId = 1;
          const send = (message) => window.parent.postMessage(Object.assign({ jsonrpc: "2.0" }, message), "*");
          function show(data) {
            if (!data) return;
            if (data.visits !== undefined) document.getElementById("visits").textContent = String(data.visits);
            if (data.status !== undefined) document.getElementById("status").textContent = String(data.status);
          }
          const waiting = new Map();
          function call(method, params) {
            const id = nextId++;
            send({ id, method, params });
            return new Promise((resolve) => waiting.set(id, resolve));
          }
          document.getElementById("adder").addEventListener("submit", async (event) => {
            event.preventDefault();
            const sum = document.getElementById("sum");
            sum.textContent = "…";
            const a = Number(document.getElementById("a").value);
            const b = Number(document.getElementById("b").value);
            const answer = await call("tools/call", { name: "add", arguments: { a, b } });
            const result = answer.result;
            sum.textContent = result && result.structuredContent
              ? "= " + result.structuredContent.sum
              : "error: " + ((answer.error && answer.error.message) || "no result");
          });
          window.addEventListener("message", (event) => {
            const message = event.data;
            if (!message || message.jsonrpc !== "2.0") return;
            if (message.id !== undefined && waiting.has(message.id)) {
              waiting.get(message.id)(message);
              waiting.delete(message.id);
            } else if (message.id === 1 && message.result) {
              send({ method: "ui/notifications/initialized", params: {} });
            } else if (message.method === "ui/notifications/tool-result") {
              show(message.params && message.params.structuredContent);
            } else if (message.method === "ui/resource-teardown" && message.id !== undefined) {
              send({ id: message.id, result: {} });
            }
          });
          send({
            id: nextId++,
            method: "ui/initialize",
            params: {
              protocolVersion: "2026-01-26",
              appInfo: { name: "yrden-demo-dashboard", version: "0.1.0" },
              appCapabilities: {}
            }
          });
        </script>
        </body>
        </html>

        """
}
