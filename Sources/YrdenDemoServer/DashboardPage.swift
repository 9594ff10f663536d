/// The `ui://demo/dashboard` view: one self-contained HTML5 document with inline style and script only, so it
/// runs under the host's restrictive default CSP. It performs the MCP Apps handshake with its host over
/// `postMessage` and shows the `structuredContent` of the tool result it is sent.
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
        </style>
        </head>
        <body>
        <h1>Demo dashboard</h1>
        <div class="tiles">
          <div class="tile"><div class="label">Visits</div><div class="value" id="visits">–</div></div>
          <div class="tile"><div class="label">Status</div><div class="value" id="status">waiting</div></div>
        </div>
        <script>
          let nextId = 1;
          const send = (message) => window.parent.postMessage(Object.assign({ jsonrpc: "2.0" }, message), "*");
          function show(data) {
            if (!data) return;
            if (data.visits !== undefined) document.getElementById("visits").textContent = String(data.visits);
            if (data.status !== undefined) document.getElementById("status").textContent = String(data.status);
          }
          window.addEventListener("message", (event) => {
            const message = event.data;
            if (!message || message.jsonrpc !== "2.0") return;
            if (message.id === 1 && message.result) {
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
