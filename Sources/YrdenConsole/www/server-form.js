// The add/edit server dialog. Validation is the gateway's: its problem+json errors are shown on the
// field their JSON path names, worded as the API words them.
import { ApiError, servers } from './api.js';
import { openModal } from './dialogs.js';
import { clear, h } from './dom.js';

// Form fields and the config keys they own; keys the form does not show (tools, timeouts, ...) are kept.
const OWNED_KEYS = ['command', 'args', 'env', 'cwd', 'url', 'type', 'headers', 'auth', 'prefix', 'disabled'];

export async function openServerForm({ id, onSaved }) {
  const dialog = document.getElementById('server-dialog');
  let existing = null;
  if (id) {
    try {
      existing = await servers.get(id);
    } catch (error) {
      alertIn(dialog, error.message);
      return;
    }
  }
  const form = buildForm(existing);
  clear(dialog).append(form.el);
  form.el.addEventListener('submit', async (event) => {
    event.preventDefault();
    form.clearErrors();
    const newId = form.value('id').trim();
    const fromRegistry = !existing && form.kind() === 'registry';
    let serverJson;
    if (fromRegistry) {
      try {
        serverJson = JSON.parse(form.value('serverJson'));
      } catch (error) {
        form.showErrors({ fieldErrors: [], message: `The server.json is not JSON: ${error.message}` });
        return;
      }
    }
    const config = fromRegistry ? null : form.config(existing?.config || {});
    try {
      const view = existing
        ? await servers.replace(existing.id, config, existing.etag)
        : fromRegistry ? await servers.addFromRegistry(newId, serverJson) : await servers.add(newId, config);
      dialog.close();
      onSaved?.(view);
    } catch (error) {
      form.showErrors(error);
    }
  });
  form.el.querySelector('[data-cancel]').addEventListener('click', () => dialog.close());
  openModal(dialog, form.el.querySelector(existing ? '[name="kind"]:checked' : '[name="id"]'));
}

function alertIn(dialog, text) {
  clear(dialog).append(h('form', { method: 'dialog' }, h('p', { role: 'alert' }, text),
    h('div', { class: 'dialog-actions' }, h('button', { type: 'submit' }, 'Close'))));
  openModal(dialog);
}

function buildForm(existing) {
  const config = existing?.config || {};
  const remote = Boolean(config.url || config.serverUrl);
  const fields = new Map(); // name → {input, error}

  const field = (name, label, input, hint) => {
    const errorId = `server-form-${name.replace('.', '-')}-error`;
    const hintId = hint ? `${errorId}-hint` : undefined;
    input.id = `server-form-${name.replace('.', '-')}`;
    input.name = name;
    input.setAttribute('aria-describedby', [hintId, errorId].filter(Boolean).join(' '));
    const error = h('p', { class: 'field-error', id: errorId, hidden: true });
    fields.set(name, { input, error });
    return h('div', { class: 'field', dataset: { field: name } },
      h('label', { for: input.id }, label), input, hint && h('p', { class: 'hint', id: hintId }, hint), error);
  };
  const text = (value = '', props = {}) => h('input', { type: 'text', value, autocomplete: 'off', spellcheck: false, ...props });
  const lines = (value = '') => h('textarea', { rows: 3, spellcheck: false }, value);

  const kindRadio = (value, label) =>
    h('label', { class: 'radio' }, h('input', { type: 'radio', name: 'kind', value, checked: value === (remote ? 'remote' : 'stdio') }), label);
  const stdioPart = h('div', { class: 'kind-part', dataset: { kind: 'stdio' } },
    field('command', 'Command', text(config.command), 'A program name or path; arguments go below.'),
    field('args', 'Arguments', lines((config.args || []).join('\n')), 'One per line.'),
    field('env', 'Environment', lines(pairs(config.env, '=')), 'NAME=value, one per line. Secrets show as ********; leave them to keep them.'),
    field('cwd', 'Working directory', text(config.cwd || '')));
  const typeSelect = h('select', {},
    ['', 'http', 'sse', 'websocket'].map((t) => h('option', { value: t, selected: (config.type || '') === t }, t || 'Streamable HTTP, SSE fallback')));
  const authSelect = h('select', {},
    h('option', { value: '', selected: config.auth?.type !== 'oauth' }, 'None (headers only)'),
    h('option', { value: 'oauth', selected: config.auth?.type === 'oauth' }, 'OAuth 2.1 sign-in'));
  const remotePart = h('div', { class: 'kind-part', dataset: { kind: 'remote' } },
    field('url', 'URL', text(config.url || config.serverUrl || '', { type: 'url', placeholder: 'https://example.com/mcp' })),
    field('type', 'Transport', typeSelect),
    field('headers', 'Headers', lines(pairs(config.headers, ': ')), 'Name: value, one per line. Secrets show as ********.'),
    field('auth', 'Authentication', authSelect),
    h('div', { class: 'oauth-part' },
      field('auth.scopes', 'Scopes', text((config.auth?.scopes || []).join(' ')), 'Separated by spaces; empty for the server default.'),
      field('auth.clientId', 'Client id', text(config.auth?.clientId || ''), 'Empty: the gateway registers itself.'),
      field('auth.clientSecret', 'Client secret', text(config.auth?.clientSecret || '', { type: 'password', autocomplete: 'new-password' }))));
  // A server of the MCP registry: its server.json pasted whole (new servers only).
  const registryPart = h('div', { class: 'kind-part', dataset: { kind: 'registry' } },
    field('serverJson', 'server.json', h('textarea', { rows: 10, spellcheck: false }),
      'As published in the MCP registry (schema 2025-12-11). Its first usable package or remote is taken; inputs marked required or secret become ${VAR}, set where the gateway runs. An empty id is made from its name.'));
  const formErrors = h('div', { class: 'form-errors', role: 'alert', tabindex: -1 });

  const el = h('form', { class: 'server-form', novalidate: true },
    h('h2', { id: 'server-dialog-title' }, existing ? `Edit ${existing.id}` : 'Add server'),
    formErrors,
    field('id', 'Id', text(existing?.id || '', { readOnly: Boolean(existing), required: true }),
      'Lowercase letters, digits, _ and -; tools appear as <id>__<name>.'),
    h('fieldset', { class: 'kind' }, h('legend', {}, 'Kind'), kindRadio('stdio', 'Local command (stdio)'), kindRadio('remote', 'Remote URL'),
      !existing && kindRadio('registry', 'From the MCP registry (server.json)')),
    stdioPart, remotePart, !existing && registryPart,
    field('prefix', 'Tool prefix', text(config.prefix || ''), 'Empty: the id.'),
    h('label', { class: 'checkbox' }, h('input', { type: 'checkbox', name: 'disabled', checked: Boolean(config.disabled) }), 'Disabled'),
    h('div', { class: 'dialog-actions' },
      h('button', { type: 'button', dataset: { cancel: '' } }, 'Cancel'),
      h('button', { type: 'submit', class: 'primary' }, existing ? 'Save' : 'Add')));

  const sync = () => {
    const kind = el.querySelector('[name="kind"]:checked').value;
    stdioPart.hidden = kind !== 'stdio';
    remotePart.hidden = kind !== 'remote';
    registryPart.hidden = kind !== 'registry';
    el.querySelector('[data-field="prefix"]').hidden = kind === 'registry';
    el.querySelector('[name="disabled"]').closest('label').hidden = kind === 'registry';
    remotePart.querySelector('.oauth-part').hidden = authSelect.value !== 'oauth';
  };
  el.addEventListener('change', sync);
  sync();

  const value = (name) => fields.get(name).input.value;
  return {
    el,
    value,
    kind: () => el.querySelector('[name="kind"]:checked').value,
    config(base) {
      const out = { ...base };
      for (const key of [...OWNED_KEYS, 'serverUrl']) delete out[key];
      const kind = el.querySelector('[name="kind"]:checked').value;
      if (kind === 'stdio') {
        out.command = value('command').trim();
        const args = value('args').split('\n').map((a) => a.trim()).filter(Boolean);
        if (args.length) out.args = args;
        const env = parsePairs(value('env'), '=');
        if (env) out.env = env;
        if (value('cwd').trim()) out.cwd = value('cwd').trim();
      } else {
        out.url = value('url').trim();
        if (value('type')) out.type = value('type');
        const headers = parsePairs(value('headers'), ':');
        if (headers) out.headers = headers;
        if (value('auth') === 'oauth') {
          const auth = { ...(base.auth?.type === 'oauth' ? base.auth : {}), type: 'oauth' };
          const scopes = value('auth.scopes').split(/\s+/).filter(Boolean);
          auth.scopes = scopes.length ? scopes : undefined;
          auth.clientId = value('auth.clientId').trim() || undefined;
          auth.clientSecret = value('auth.clientSecret') || undefined;
          out.auth = JSON.parse(JSON.stringify(auth));
        }
      }
      if (value('prefix').trim()) out.prefix = value('prefix').trim();
      if (el.querySelector('[name="disabled"]').checked) out.disabled = true;
      return out;
    },
    clearErrors() {
      formErrors.replaceChildren();
      for (const { input, error } of fields.values()) {
        input.removeAttribute('aria-invalid');
        error.hidden = true;
        error.textContent = '';
      }
    },
    showErrors(error) {
      const problems = error instanceof ApiError && error.fieldErrors.length
        ? error.fieldErrors
        : [{ path: '', message: error.message, fix: '' }];
      let first = null;
      const unplaced = [];
      for (const problem of problems) {
        const target = fields.get(fieldOf(problem.path));
        const textOf = `${problem.message}${problem.fix ? ` — ${problem.fix}` : ''}`;
        if (!target || target.input.closest('[hidden]')) {
          unplaced.push(h('li', {}, problem.path ? `${problem.path}: ${textOf}` : textOf));
          continue;
        }
        target.input.setAttribute('aria-invalid', 'true');
        target.error.hidden = false;
        target.error.textContent = target.error.textContent ? `${target.error.textContent} ${textOf}` : textOf;
        first ??= target.input;
      }
      if (unplaced.length) {
        formErrors.append(h('p', {}, error.problem?.title || 'Not saved'), h('ul', {}, unplaced));
        first = null;
      }
      (first || formErrors).focus?.();
      if (!first) formErrors.scrollIntoView({ block: 'nearest' });
    },
  };
}

/** The form field a problem's JSON path names: "mcpServers.time.args[1]" → "args", "…auth.clientId" → "auth.clientId". */
function fieldOf(path) {
  if (path === 'id') return 'id';
  const match = /^mcpServers(?:\.[^.[]+|\["(?:[^"\\]|\\.)*"\])(.*)$/.exec(path || '');
  if (!match) return null;
  const keys = match[1].split(/[.[]/).filter(Boolean).map((k) => k.replace(/\]$/, ''));
  if (keys.length === 0) return null;
  if (keys[0] === 'serverUrl') return 'url';
  if (keys[0] === 'auth' && ['scopes', 'clientId', 'clientSecret'].includes(keys[1])) return `auth.${keys[1]}`;
  return OWNED_KEYS.includes(keys[0]) && keys[0] !== 'disabled' ? keys[0] : null;
}

function pairs(object, separator) {
  return Object.entries(object || {}).map(([k, v]) => `${k}${separator}${v}`).join('\n');
}

function parsePairs(textValue, separator) {
  const out = {};
  for (const line of textValue.split('\n')) {
    if (!line.trim()) continue;
    const at = line.indexOf(separator);
    // A line without the separator is sent as a name with an empty value, for the gateway to judge.
    const name = (at < 0 ? line : line.slice(0, at)).trim();
    out[name] = at < 0 ? '' : line.slice(at + separator.length).trim();
  }
  return Object.keys(out).length ? out : null;
}
