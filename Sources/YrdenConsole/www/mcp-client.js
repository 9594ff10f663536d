// The console's own MCP session on /mcp (Streamable HTTP, handshake era): requests with progress and
// cancellation, answers as JSON or as an SSE stream.
import { authHeaders } from './api.js';
import { readEvents } from './sse.js';

const PROTOCOL_VERSION = '2025-11-25';

class McpError extends Error {
  constructor(error) {
    super(error?.message || 'MCP error');
    this.code = error?.code;
    this.data = error?.data;
  }
}

export class McpClient {
  constructor(url = '/mcp') {
    this.url = url;
    this.nextId = 1;
    this.session = null; // Promise of the session id
  }

  async sessionId() {
    this.session ??= this.#initialize().catch((error) => {
      this.session = null;
      throw error;
    });
    return this.session;
  }

  async #initialize() {
    const response = await this.#post(null, {
      jsonrpc: '2.0',
      id: this.nextId++,
      method: 'initialize',
      params: {
        protocolVersion: PROTOCOL_VERSION,
        capabilities: {
          extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
        },
        clientInfo: { name: 'yrden-console', title: 'Yrden console', version: '1' },
      },
    });
    const sessionId = response.headers.get('Mcp-Session-Id');
    await this.#answerOf(response, null);
    if (!sessionId) throw new Error('the gateway did not open a session');
    await this.#post(sessionId, { jsonrpc: '2.0', method: 'notifications/initialized' });
    return sessionId;
  }

  #post(sessionId, message, signal) {
    const headers = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...authHeaders(),
    };
    if (sessionId) {
      headers['Mcp-Session-Id'] = sessionId;
      headers['MCP-Protocol-Version'] = PROTOCOL_VERSION;
    }
    return fetch(this.url, { method: 'POST', headers, body: JSON.stringify(message), signal, cache: 'no-store' });
  }

  /**
   * request('tools/call', {name, arguments}, {onProgress, signal}) → result. Aborting `signal` tells the
   * server with notifications/cancelled and rejects with an AbortError.
   */
  async request(method, params = {}, { onProgress, signal } = {}) {
    for (let attempt = 0; ; attempt++) {
      const sessionId = await this.sessionId();
      const id = this.nextId++;
      const progressToken = onProgress ? `console-${id}` : undefined;
      const body = { jsonrpc: '2.0', id, method, params: progressToken ? withProgressToken(params, progressToken) : params };
      const fetchAbort = new AbortController();
      const onAbort = () => {
        this.#post(sessionId, {
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: id, reason: 'Cancelled in the console' },
        }).catch(() => {});
        fetchAbort.abort();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const response = await this.#post(sessionId, body, fetchAbort.signal);
        // A session the gateway forgot (restart, idle expiry) is opened again once.
        if (response.status === 404 && attempt === 0) {
          this.session = null;
          continue;
        }
        return await this.#answerOf(response, id, (message) => {
          if (message.method === 'notifications/progress' && message.params?.progressToken === progressToken) {
            onProgress?.(message.params);
          }
        });
      } catch (error) {
        if (signal?.aborted) throw new DOMException('Cancelled', 'AbortError');
        throw error;
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    }
  }

  async #answerOf(response, id, onMessage = () => {}) {
    const type = response.headers.get('Content-Type') || '';
    if (!response.ok && !type.includes('json') && !type.includes('event-stream')) {
      throw new Error(`HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`);
    }
    if (type.includes('text/event-stream')) {
      for await (const { data } of readEvents(response)) {
        const message = JSON.parse(data);
        if ('id' in message && (message.result !== undefined || message.error !== undefined)) {
          if (id === null || message.id === id) return settle(message);
        } else {
          onMessage(message);
        }
      }
      throw new Error('the stream ended without an answer');
    }
    const text = await response.text();
    if (!text) return null;
    const message = JSON.parse(text);
    if (Array.isArray(message)) return settle(message.find((m) => m.id === id) || message[0]);
    return settle(message);
  }
}

function withProgressToken(params, progressToken) {
  return { ...params, _meta: { ...(params._meta || {}), progressToken } };
}

function settle(message) {
  if (message.error) throw new McpError(message.error);
  return message.result;
}
