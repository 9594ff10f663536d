// The Content-Security-Policy an MCP App's page runs under, from its resource's `_meta.ui.csp`
// (SEP-1865): the restrictive default when it declares nothing, never a domain it did not declare.

// A declared source: https/wss with an optional `*.` label and port, or http/ws on loopback only.
// Anything else (`*`, keywords, paths, `;`, spaces) is dropped, so a value cannot add a directive.
const SOURCE = /^(?:(?:https|wss):\/\/(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*|(?:http|ws):\/\/(?:localhost|127\.0\.0\.1|\[::1\]))(?::\d{1,5})?$/i;

const DEFAULT_POLICY = [
  "default-src 'none'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "media-src 'self' data:",
  "connect-src 'none'",
  "frame-src 'none'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'none'",
];

/** sources(['https://a.com', 'x; y']) → ['https://a.com']; `forbidden` origins (console, sandbox) are dropped too. */
function sources(list, forbidden) {
  if (!Array.isArray(list)) return [];
  return list.filter((s) => typeof s === 'string' && SOURCE.test(s) && !forbidden.has(s.toLowerCase()));
}

export function buildAppCsp(csp, forbiddenOrigins = []) {
  if (!csp || typeof csp !== 'object') return DEFAULT_POLICY.join('; ');
  const forbidden = new Set(forbiddenOrigins.map((o) => o.toLowerCase()));
  const r = sources(csp.resourceDomains, forbidden);
  const c = sources(csp.connectDomains, forbidden);
  const f = sources(csp.frameDomains, forbidden);
  const b = sources(csp.baseUriDomains, forbidden);
  const join = (...parts) => parts.flat().join(' ');
  return [
    "default-src 'none'",
    join("script-src 'self' 'unsafe-inline'", r),
    join("style-src 'self' 'unsafe-inline'", r),
    join("img-src 'self' data:", r),
    join("media-src 'self' data:", r),
    join("font-src 'self'", r),
    join("connect-src 'self'", c),
    f.length ? join('frame-src', f) : "frame-src 'none'",
    "object-src 'none'",
    b.length ? join('base-uri', b) : "base-uri 'self'",
    "form-action 'none'",
  ].join('; ');
}

const PERMISSIONS = { camera: 'camera', microphone: 'microphone', geolocation: 'geolocation', clipboardWrite: 'clipboard-write' };

/** The iframe `allow` list for `_meta.ui.permissions` ({camera: {}, …}); unknown keys are ignored. */
export function allowList(permissions) {
  return Object.keys(permissions || {}).filter((k) => k in PERMISSIONS).map((k) => PERMISSIONS[k]).join('; ');
}
