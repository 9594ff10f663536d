// The sandbox proxy (SEP-1865's outer frame), on the sandbox origin. It puts the app's page in an inner
// frame with an opaque origin (no allow-same-origin), so the page can reach neither this proxy, nor other
// apps' proxies, nor the console, and relays JSON-RPC messages between that page and the console only.
(() => {
  // The console's origin: Chromium says who embeds us; elsewhere the console names itself in the query
  // (the console sends no referrer). The sandbox's frame-ancestors lets nothing else embed this page.
  const hostOrigin = window.location.ancestorOrigins?.[0] || new URLSearchParams(window.location.search).get('host') || '';
  let isolated = false;
  try {
    void window.top.document; // must throw: the console is another origin
  } catch {
    isolated = true;
  }
  if (window.top === window || !hostOrigin || !isolated) {
    document.addEventListener('DOMContentLoaded', () => {
      document.body.textContent = 'This page only runs inside the Yrden console.';
    });
    return;
  }

  const inner = document.createElement('iframe');
  inner.setAttribute('sandbox', 'allow-scripts allow-forms');
  inner.title = 'App';
  let loaded = false;

  // The page's CSP goes first in the document, before anything of the page can run.
  function withCsp(html, policy) {
    const meta = `<meta http-equiv="Content-Security-Policy" content="${policy.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">`;
    const body = String(html).replace(/^\uFEFF?\s*(?:<!--[\s\S]*?-->\s*)*<!doctype[^>]*>/i, '');
    return `<!DOCTYPE html>${meta}${body}`;
  }

  window.addEventListener('message', (event) => {
    const message = event.data;
    if (event.source === window.parent) {
      if (event.origin !== hostOrigin) return;
      if (message?.method === 'ui/notifications/sandbox-resource-ready') {
        if (loaded) return; // one page per proxy: a second resource is ignored
        loaded = true;
        const { html, csp, allow } = message.params || {};
        if (allow) inner.setAttribute('allow', allow);
        inner.srcdoc = withCsp(html, csp);
        document.body.append(inner);
        return;
      }
      // The inner page's origin is opaque, so '*' is the only target that reaches it.
      inner.contentWindow?.postMessage(message, '*');
    } else if (inner.contentWindow && event.source === inner.contentWindow) {
      if (typeof message?.method === 'string' && message.method.startsWith('ui/notifications/sandbox-')) return;
      window.parent.postMessage(message, hostOrigin);
    }
  });

  window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} }, hostOrigin);
})();
