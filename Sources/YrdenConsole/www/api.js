// The admin API (/api/v1): the bearer token, JSON bodies, and problem+json errors as ApiError.

const TOKEN_KEY = 'yrden.adminToken';
let askForToken = async () => false;

/** `ask(reason)` shows the token dialog and resolves true once a new token is stored. */
export function onTokenNeeded(ask) {
  askForToken = ask;
}

// sessionStorage: the token lives as long as this tab, never on disk across sessions.
export function storedToken() {
  return sessionStorage.getItem(TOKEN_KEY) || '';
}

export function storeToken(token) {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

/** The admin token as a bearer header, also what /mcp accepts from the console when it requires tokens. */
export function authHeaders() {
  const token = storedToken();
  return token ? { Authorization: `Bearer ${token}` } : {};
}

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
  }

  /** The problem's field errors: [{path, message, fix}]. */
  get fieldErrors() {
    return Array.isArray(this.problem.errors) ? this.problem.errors : [];
  }
}

/** Asks for the token again when the gateway answers 401, then retries. */
export async function withToken(send) {
  for (;;) {
    const response = await send(authHeaders());
    if (response.status !== 401) return response;
    storeToken('');
    if (!(await askForToken('The gateway refused the admin token.'))) return response;
  }
}

/**
 * api('POST', '/servers', {body}) → parsed JSON (or null for 204), with the response's ETag as `etag`.
 * Writes always carry a JSON media type: the gateway refuses others, and a cross-site form cannot send one.
 */
export async function api(method, path, { body, etag, mediaType = 'application/json' } = {}) {
  const response = await withToken((auth) => {
    const headers = { Accept: 'application/json', ...auth };
    if (method !== 'GET') headers['Content-Type'] = mediaType;
    if (etag) headers['If-Match'] = etag;
    return fetch(`/api/v1${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
  });
  const text = await response.text();
  let parsed = null;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = { detail: text };
    }
  }
  if (!response.ok) throw new ApiError(response.status, parsed);
  if (parsed && typeof parsed === 'object') {
    Object.defineProperty(parsed, 'etag', { value: response.headers.get('ETag'), enumerable: false });
  }
  return parsed;
}

export const servers = {
  list: () => api('GET', '/servers'),
  get: (id) => api('GET', `/servers/${encodeURIComponent(id)}`),
  add: (id, config) => api('POST', '/servers', { body: { id, config } }),
  // A registry server.json as it is; the gateway makes the entry (the id, when empty, from its name).
  addFromRegistry: (id, serverJson) =>
    api('POST', `/servers${id ? `?id=${encodeURIComponent(id)}` : ''}`, { body: serverJson }),
  replace: (id, config, etag) => api('PUT', `/servers/${encodeURIComponent(id)}`, { body: config, etag }),
  patch: (id, patch) =>
    api('PATCH', `/servers/${encodeURIComponent(id)}`, { body: patch, mediaType: 'application/merge-patch+json' }),
  remove: (id) => api('DELETE', `/servers/${encodeURIComponent(id)}`),
  action: (id, verb) => api('POST', `/servers/${encodeURIComponent(id)}/${verb}`),
  signIn: (id) => api('POST', `/servers/${encodeURIComponent(id)}/auth`),
  signOut: (id) => api('DELETE', `/servers/${encodeURIComponent(id)}/tokens`),
  tools: (id) => api('GET', `/servers/${encodeURIComponent(id)}/tools`),
  prompts: (id) => api('GET', `/servers/${encodeURIComponent(id)}/prompts`),
  resources: (id) => api('GET', `/servers/${encodeURIComponent(id)}/resources`),
  logs: (id, since) =>
    api('GET', `/logs?server=${encodeURIComponent(id)}&limit=200${since ? `&since=${encodeURIComponent(since)}` : ''}`),
};

export const allTools = () => api('GET', '/tools');

/**
 * A GET of `path` sending `If-None-Match: etag` when given: `{status, etag, body}`, status 304 (no body) when
 * the gateway says the copy tagged `etag` is current. Other failures throw ApiError, as `api` does.
 */
export async function revalidate(path, etag) {
  const response = await withToken((auth) => {
    const headers = { Accept: 'application/json', ...auth };
    if (etag) headers['If-None-Match'] = etag;
    return fetch(`/api/v1${path}`, { headers, cache: 'no-store' });
  });
  if (response.status === 304) return { status: 304, etag };
  const text = await response.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = { detail: text };
  }
  if (!response.ok) throw new ApiError(response.status, parsed);
  return { status: response.status, etag: response.headers.get('ETag'), body: parsed };
}

export const toolPins = {
  list: () => api('GET', '/tool-pins'),
  approve: (server, tool, digest) =>
    api('POST', `/servers/${encodeURIComponent(server)}/tools/${encodeURIComponent(tool)}/approve`, { body: { digest } }),
};
