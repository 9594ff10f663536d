// The MCP Apps host (SEP-1865): each app view runs in the double-iframe sandbox on the sandbox origin,
// speaks JSON-RPC over postMessage with this page, and reaches tools and resources of its own server only:
// its requests go to that server's own endpoint (/servers/{id}/mcp), never by name or URI through the
// aggregate, whose routes would take a URI the page chose to whichever server the gateway's table names.
import { revalidate } from './api.js';
import { allowList, buildAppCsp } from './app-csp.js';
import { confirmAction } from './dialogs.js';
import { h } from './dom.js';
import { ListCache } from './list-cache.js';
import { McpClient } from './mcp-client.js';
import { currentTheme, onThemeChange } from './theme.js';

const APP_PROTOCOL = '2026-01-26';
const APP_MIME_TYPES = ['text/html;profile=mcp-app', 'text/html+mcp'];
const TEARDOWN_TIMEOUT_MS = 3000;
const MAX_VIEWS = 8;

/** The `ui://` resource a tool declares (nested key first, then the legacy flat key), or null. */
export function uiResourceOf(tool) {
  const uri = tool?._meta?.ui?.resourceUri ?? tool?._meta?.['ui/resourceUri'];
  return typeof uri === 'string' ? uri : null;
}

/** Whether the tool may be called by an app: visibility absent, or listing "app". */
function appVisible(tool) {
  const visibility = tool?._meta?.ui?.visibility;
  return !Array.isArray(visibility) || visibility.includes('app');
}

export class AppHost {
  constructor({ settings, list, empty }) {
    this.settings = settings;
    this.serverClients = new Map(); // server id → the console's session on that server's own endpoint
    this.lists = new ListCache(revalidate); // servers' own lists, revalidated by ETag before each use
    this.list = list;
    this.empty = empty;
    this.views = new Set();
    onThemeChange((theme) => {
      for (const view of this.views) view.notify('ui/notifications/host-context-changed', { theme });
    });
  }

  /** Opens a view for one tool call. `call` is the tools/call promise; `cancel` aborts it. */
  async open({ serverId, tool, args, call, cancel }) {
    if (this.views.size >= MAX_VIEWS) [...this.views][0].close('too many views');
    const view = new AppView(this, { serverId, tool, args, call, cancel });
    this.views.add(view);
    this.empty.hidden = true;
    this.list.prepend(view.card);
    try {
      await view.start();
    } catch (error) {
      view.fail(error.message);
    }
    return view;
  }

  /** The console's MCP client of server `serverId` alone: what a page of that server reaches, and nothing else. */
  clientOf(serverId) {
    if (!this.serverClients.has(serverId)) {
      this.serverClients.set(serverId, new McpClient(serverEndpoint(serverId)));
    }
    return this.serverClients.get(serverId);
  }

  /** Server `serverId`'s own tools, or resources and templates (`list`), current as of this call. */
  listOf(serverId, list) {
    return this.lists.get(`/servers/${encodeURIComponent(serverId)}/${list}`);
  }

  closed(view) {
    this.views.delete(view);
    this.empty.hidden = this.views.size > 0;
  }
}

class AppView {
  constructor(host, { serverId, tool, args, call, cancel }) {
    Object.assign(this, { host, serverId, tool, args, call, cancel });
    this.uri = uiResourceOf(tool);
    this.client = host.clientOf(serverId);
    this.initialized = false;
    this.queue = []; // host → view notifications held until the view says it is initialized
    this.pending = new Map(); // ids of our requests to the view → resolve
    this.nextId = 1;
    this.proxyReady = false;
    this.onMessage = (event) => this.#receive(event);
    const title = tool.title || tool.name;
    this.status = h('p', { class: 'hint', role: 'status' }, 'Loading…');
    this.log = h('ol', { class: 'app-log', 'aria-label': `Messages from ${title}`, 'aria-live': 'polite' });
    this.frameBox = h('div', { class: 'app-frame' });
    this.card = h('article', { class: 'app-card', dataset: { serverId, tool: tool.name, uri: this.uri || '' } },
      h('header', { class: 'card-head' },
        h('h3', {}, title, h('span', { class: 'hint' }, ` · ${serverId} · ${this.uri}`)),
        h('button', { type: 'button', onclick: () => this.close('closed by the user') }, 'Close')),
      this.status, this.frameBox, this.log);
  }

  async start() {
    if (!this.uri?.startsWith('ui://')) throw new Error(`The tool's UI resource is not a ui:// URI: ${this.uri}`);
    const [read, listing] = await Promise.all([
      this.client.request('resources/read', { uri: this.uri }),
      this.host.listOf(this.serverId, 'resources').catch(() => ({ resources: [] })),
    ]);
    const contents = read?.contents || [];
    if (contents.length !== 1) throw new Error(`Expected one content item for ${this.uri}, got ${contents.length}`);
    const [item] = contents;
    if (!APP_MIME_TYPES.includes(item.mimeType)) throw new Error(`${this.uri} is ${item.mimeType}, not an MCP App page`);
    const html = typeof item.text === 'string' ? item.text : decodeBase64(item.blob || '');
    const listed = (listing.resources || []).find((r) => r.uri === this.uri);
    const ui = { ...(listed?._meta?.ui || {}), ...(item._meta?.ui || item.meta?.ui || {}) }; // the content item wins
    const origin = window.location.origin;
    this.csp = buildAppCsp(ui.csp, [origin, this.host.settings.sandboxOrigin]);
    this.permissions = ui.permissions || {};
    console.info(`App view ${this.uri} (${this.serverId}) runs under CSP: ${this.csp}`);
    this.html = html;
    this.card.classList.toggle('borderless', ui.prefersBorder === false);

    window.addEventListener('message', this.onMessage);
    this.frame = h('iframe', {
      class: 'app-outer',
      title: `App view: ${this.tool.title || this.tool.name}`,
      sandbox: 'allow-scripts allow-same-origin allow-forms',
      src: `${this.host.settings.sandboxOrigin}/sandbox.html?host=${encodeURIComponent(window.location.origin)}`,
    });
    const allow = allowList(this.permissions);
    if (allow) this.frame.setAttribute('allow', allow);
    this.frameBox.append(this.frame);

    this.call.then(
      (result) => this.notify('ui/notifications/tool-result', result),
      (error) => this.notify('ui/notifications/tool-cancelled', { reason: error.message }),
    );
  }

  fail(message) {
    this.status.textContent = `Cannot show the view: ${message}`;
    this.status.classList.add('error-text');
  }

  #post(message) {
    this.frame?.contentWindow?.postMessage({ jsonrpc: '2.0', ...message }, this.host.settings.sandboxOrigin);
  }

  notify(method, params) {
    if (!this.initialized) this.queue.push({ method, params });
    else this.#post({ method, params });
  }

  request(method, params, timeoutMs) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method}: no answer`));
      }, timeoutMs);
      this.pending.set(id, (message) => {
        clearTimeout(timer);
        resolve(message);
      });
      this.#post({ id, method, params });
    });
  }

  async #receive(event) {
    // Only this view's own proxy, from the sandbox origin: ids and methods alone never identify a view.
    if (!this.frame || event.source !== this.frame.contentWindow || event.origin !== this.host.settings.sandboxOrigin) return;
    const message = event.data;
    if (!message || message.jsonrpc !== '2.0') return;
    if (message.method === 'ui/notifications/sandbox-proxy-ready') {
      if (this.proxyReady) return;
      this.proxyReady = true;
      this.#post({
        method: 'ui/notifications/sandbox-resource-ready',
        params: { html: this.html, csp: this.csp, allow: allowList(this.permissions) },
      });
      return;
    }
    if (message.method === undefined && 'id' in message) {
      this.pending.get(message.id)?.(message);
      this.pending.delete(message.id);
      return;
    }
    if (typeof message.method !== 'string') return;
    if (!('id' in message)) {
      this.#notification(message.method, message.params || {});
      return;
    }
    try {
      const result = await this.#handle(message.method, message.params || {});
      this.#post({ id: message.id, result });
    } catch (error) {
      this.#post({ id: message.id, error: { code: error.code ?? -32000, message: error.message, data: error.data } });
    }
  }

  #notification(method, params) {
    switch (method) {
      case 'ui/notifications/initialized':
        if (this.initialized) return;
        this.initialized = true;
        this.status.textContent = '';
        this.#post({ method: 'ui/notifications/tool-input', params: { arguments: this.args } });
        for (const queued of this.queue.splice(0)) this.#post(queued);
        return;
      case 'ui/notifications/size-changed':
        if (Number.isFinite(params.height) && params.height >= 0) this.frame.style.height = `${Math.min(params.height, 6000)}px`;
        return;
      case 'ui/notifications/request-teardown':
        this.close('requested by the app');
        return;
      case 'notifications/message':
      case 'ui/log':
        this.#logLine(`${params.level || 'info'}${params.logger ? ` ${params.logger}` : ''}: ${textOf(params.data)}`);
        return;
      default:
        return;
    }
  }

  async #handle(method, params) {
    switch (method) {
      case 'ui/initialize':
        return {
          protocolVersion: APP_PROTOCOL,
          hostInfo: { name: 'yrden-console', version: this.host.settings.version || '0' },
          hostCapabilities: {
            openLinks: {},
            serverTools: {},
            serverResources: {},
            logging: {},
            message: { text: {} },
            sandbox: { csp: this.csp, permissions: this.permissions },
          },
          hostContext: this.#context(),
        };
      case 'ping':
        return {};
      case 'tools/call':
        return this.#callTool(params);
      case 'tools/list':
        return { tools: (await this.host.listOf(this.serverId, 'tools')).tools.filter(appVisible) };
      case 'resources/read':
        if (typeof params.uri !== 'string') throw Object.assign(new Error('resources/read needs a uri'), { code: -32602 });
        return this.client.request('resources/read', { uri: params.uri });
      case 'resources/list':
        return { resources: (await this.host.listOf(this.serverId, 'resources')).resources };
      case 'resources/templates/list':
        return { resourceTemplates: (await this.host.listOf(this.serverId, 'resources')).resourceTemplates };
      case 'ui/open-link':
        return this.#openLink(params.url);
      case 'ui/message':
        this.#logLine(`Message from the app (${params.role || 'user'}): ${contentText(params.content)}`);
        return {};
      case 'ui/update-model-context':
        this.modelContext = params;
        return {};
      case 'ui/request-display-mode':
        return { mode: 'inline' };
      default:
        throw Object.assign(new Error(`Method not found: ${method}`), { code: -32601 });
    }
  }

  #context() {
    return {
      toolInfo: { tool: this.tool },
      theme: currentTheme(),
      displayMode: 'inline',
      availableDisplayModes: ['inline'],
      containerDimensions: { maxHeight: 6000, width: this.frameBox.clientWidth || undefined },
      locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      platform: 'web',
      deviceCapabilities: { touch: navigator.maxTouchPoints > 0, hover: window.matchMedia('(hover: hover)').matches },
    };
  }

  // An app calls its own server's tools by their upstream names, which are the names on the server's own
  // endpoint; that endpoint applies the server's tool filter and pinning as the aggregate does.
  async #callTool({ name, arguments: args }) {
    if (typeof name !== 'string') throw Object.assign(new Error('tools/call needs a tool name'), { code: -32602 });
    const { tools } = await this.host.listOf(this.serverId, 'tools');
    const tool = tools.find((t) => t.name === name);
    if (!tool) throw Object.assign(new Error(`${this.serverId} has no tool "${name}"`), { code: -32602 });
    if (!appVisible(tool)) throw new Error(`"${name}" is not visible to apps`);
    this.#logLine(`The app called ${name}`);
    return this.client.request('tools/call', { name, arguments: args || {} });
  }

  async #openLink(url) {
    let parsed;
    try {
      parsed = new URL(url);
    } catch {
      throw Object.assign(new Error('not a URL'), { code: -32602 });
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new Error('only http and https links open');
    const ok = await confirmAction('Open a link from an app?', `${this.tool.title || this.tool.name} (${this.serverId}) wants to open ${parsed.href}`, 'Open link');
    if (!ok) throw new Error('the user declined');
    window.open(parsed.href, '_blank', 'noopener,noreferrer');
    return {};
  }

  #logLine(text) {
    this.log.append(h('li', {}, text));
  }

  async close(reason) {
    if (this.closing) return;
    this.closing = true;
    if (this.initialized) {
      await this.request('ui/resource-teardown', { reason }, TEARDOWN_TIMEOUT_MS).catch(() => {});
    }
    this.cancel?.();
    window.removeEventListener('message', this.onMessage);
    this.pending.clear();
    this.card.remove();
    this.host.closed(this);
  }
}

function decodeBase64(blob) {
  const bytes = Uint8Array.from(atob(blob), (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

function textOf(data) {
  return typeof data === 'string' ? data : JSON.stringify(data);
}

function contentText(content) {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks.map((b) => (b?.type === 'text' ? b.text : JSON.stringify(b))).join(' ');
}

/** The MCP endpoint of server `serverId` alone. */
export function serverEndpoint(serverId) {
  return `/servers/${encodeURIComponent(serverId)}/mcp`;
}
