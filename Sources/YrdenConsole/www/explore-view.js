// The Explore view: one server's tools, resources, resource templates and prompts; calls with a form
// generated from each input schema, progress and cancel; tools with an app view open it in the app host.
import { allTools, servers } from './api.js';
import { uiResourceOf } from './app-host.js';
import { append, clear, formatJSON, h, idFor, pre } from './dom.js';
import { renderContents, renderPrompt, renderToolResult } from './result-view.js';
import { buildSchemaForm, InputError } from './schema-form.js';

export class ExploreView {
  constructor({ client, appHost, settings }) {
    Object.assign(this, { client, appHost, settings });
    this.select = document.getElementById('explore-server');
    this.catalog = document.getElementById('explore-catalog');
    this.detail = document.getElementById('explore-detail');
    this.servers = new Map();
    this.select.addEventListener('change', () => this.load());
  }

  /** Called with the servers' current views whenever they change. */
  setServers(views) {
    this.servers = views;
    const current = this.select.value;
    const ids = [...views.keys()];
    if (ids.join('\n') !== [...this.select.options].map((o) => o.value).join('\n')) {
      clear(this.select).append(...ids.map((id) => h('option', { value: id }, id)));
      this.select.value = ids.includes(current) ? current : ids[0] || '';
      if (this.select.value !== current) this.load();
    }
  }

  handleEvent(name, data) {
    if (name === 'server.catalog' && data.id === this.select.value) this.load();
  }

  get serverId() {
    return this.select.value;
  }

  async load() {
    const id = this.serverId;
    clear(this.catalog);
    if (!id) return;
    try {
      const [tools, resources, prompts] = await Promise.all([
        allTools().then((r) => r.tools.filter((t) => t.server === id).map((t) => t.tool)),
        servers.resources(id),
        servers.prompts(id),
      ]);
      if (id !== this.serverId) return; // another server was picked meanwhile
      const prefix = `${this.servers.get(id)?.config?.prefix || id}${this.settings.toolSeparator}`;
      clear(this.catalog).append(
        section('Tools', tools, (t) => t.title ? `${t.name} — ${t.title}` : t.name, (t) => this.showTool(t)),
        section('Resources', resources.resources, (r) => r.name || r.uri, (r) => this.showResource(r)),
        section('Resource templates', resources.resourceTemplates, (t) => t.uriTemplate, (t) => this.showTemplate(t)),
        section('Prompts', prompts.prompts.map((p) => ({ ...p, publicName: prefix + p.name })), (p) => p.publicName,
          (p) => this.showPrompt(p)));
    } catch (error) {
      this.catalog.append(h('p', { class: 'error-text', role: 'alert' }, error.message));
    }
  }

  #show(title, ...parts) {
    append(clear(this.detail), [h('h3', { tabindex: -1 }, title), parts]);
    this.detail.querySelector('h3').focus();
  }

  showTool(tool) {
    const form = buildSchemaForm(tool.inputSchema, { label: `Arguments of ${tool.name}` });
    const output = h('div', { class: 'call-output', 'aria-live': 'polite' });
    const progress = h('progress', { hidden: true, max: 1, 'aria-label': 'Progress' });
    const progressText = h('span', { class: 'hint' });
    const cancel = h('button', { type: 'button', disabled: true }, 'Cancel');
    const call = h('button', { type: 'submit', class: 'primary' }, 'Call');
    const uri = uiResourceOf(tool);
    const el = h('form', { class: 'call-form', dataset: { tool: tool.name } }, form.el,
      h('div', { class: 'actions' }, call, cancel, progress, progressText));
    el.addEventListener('submit', async (event) => {
      event.preventDefault();
      clear(output);
      let args;
      try {
        args = form.read();
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        output.append(h('p', { class: 'error-text', role: 'alert' }, error.message));
        error.input?.focus();
        return;
      }
      const controller = new AbortController();
      cancel.disabled = false;
      cancel.onclick = () => controller.abort();
      progress.hidden = false;
      progress.removeAttribute('value');
      progressText.textContent = 'Running…';
      const running = this.client.request('tools/call', { name: tool.name, arguments: args }, {
        signal: controller.signal,
        onProgress: ({ progress: done, total, message }) => {
          if (total) {
            progress.max = total;
            progress.value = done;
          }
          progressText.textContent = message || `${done}${total ? ` of ${total}` : ''}`;
        },
      });
      if (uri) {
        const separator = this.settings.toolSeparator;
        const bare = tool.name.slice(tool.name.indexOf(separator) + separator.length);
        this.appHost.open({ serverId: this.serverId, tool: { ...tool, name: bare }, args, call: running, cancel: () => controller.abort() });
      }
      try {
        output.append(renderToolResult(await running, tool));
        progressText.textContent = 'Done';
      } catch (error) {
        progressText.textContent = '';
        output.append(h('p', { class: 'error-text', role: 'alert' }, error.name === 'AbortError' ? 'Cancelled.' : `Error: ${error.message}`));
      } finally {
        cancel.disabled = true;
        progress.hidden = true;
      }
    });
    this.#show(tool.title || tool.name,
      h('p', { class: 'hint' }, tool.name, uri && h('span', { class: 'badge' }, 'app view')),
      tool.description && h('p', {}, tool.description),
      tool.annotations && h('dl', { class: 'facts' }, Object.entries(tool.annotations).map(([k, v]) => [h('dt', {}, k), h('dd', {}, String(v))])),
      h('details', {}, h('summary', {}, 'Input schema'), pre(formatJSON(tool.inputSchema || {}))),
      tool.outputSchema && h('details', {}, h('summary', {}, 'Output schema'), pre(formatJSON(tool.outputSchema))),
      el, output);
  }

  showResource(resource) {
    const output = h('div', { 'aria-live': 'polite' });
    this.#show(resource.title || resource.name || resource.uri,
      h('p', { class: 'hint' }, `${resource.uri}${resource.mimeType ? ` · ${resource.mimeType}` : ''}`),
      resource.description && h('p', {}, resource.description),
      h('button', { type: 'button', class: 'primary', onclick: () => this.#read(resource.uri, output) }, 'Read'),
      output);
  }

  showTemplate(template) {
    const names = [...template.uriTemplate.matchAll(/\{([+#]?)([^}]+)\}/g)].flatMap((m) => m[2].split(','));
    const inputs = names.map((name) => {
      const id = idFor('template', name);
      const input = h('input', { id, type: 'text', required: true });
      return { name, input, field: h('div', { class: 'field' }, h('label', { for: id }, name), input) };
    });
    const output = h('div', { 'aria-live': 'polite' });
    const form = h('form', {}, inputs.map((i) => i.field), h('button', { type: 'submit', class: 'primary' }, 'Read'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const values = Object.fromEntries(inputs.map((i) => [i.name, i.input.value]));
      const uri = template.uriTemplate.replace(/\{([+#]?)([^}]+)\}/g, (_, op, vars) =>
        vars.split(',').map((v) => (op ? values[v] : encodeURIComponent(values[v]))).join(','));
      this.#read(uri, output);
    });
    this.#show(template.title || template.name || template.uriTemplate,
      h('p', { class: 'hint' }, template.uriTemplate), template.description && h('p', {}, template.description), form, output);
  }

  showPrompt(prompt) {
    const inputs = (prompt.arguments || []).map((arg) => {
      const id = idFor('prompt', prompt.name, arg.name);
      const input = h('input', { id, type: 'text', required: Boolean(arg.required) });
      return { arg, input, field: h('div', { class: 'field' },
        h('label', { for: id }, arg.name, arg.required ? ' *' : ''), input, arg.description && h('p', { class: 'hint' }, arg.description)) };
    });
    const output = h('div', { 'aria-live': 'polite' });
    const form = h('form', {}, inputs.map((i) => i.field), h('button', { type: 'submit', class: 'primary' }, 'Get'));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const args = Object.fromEntries(inputs.filter((i) => i.input.value !== '').map((i) => [i.arg.name, i.input.value]));
      clear(output);
      try {
        output.append(renderPrompt(await this.client.request('prompts/get', { name: prompt.publicName, arguments: args })));
      } catch (error) {
        output.append(h('p', { class: 'error-text', role: 'alert' }, error.message));
      }
    });
    this.#show(prompt.title || prompt.name, h('p', { class: 'hint' }, prompt.publicName),
      prompt.description && h('p', {}, prompt.description), form, output);
  }

  async #read(uri, output) {
    clear(output);
    try {
      output.append(renderContents((await this.client.request('resources/read', { uri })).contents));
    } catch (error) {
      output.append(h('p', { class: 'error-text', role: 'alert' }, error.message));
    }
  }
}

function section(title, items, label, open) {
  return h('section', {},
    h('h3', {}, `${title} (${items.length})`),
    items.length
      ? h('ul', { class: 'catalog-list' }, items.map((item) => h('li', {}, h('button', { type: 'button', class: 'link', onclick: () => open(item) }, label(item)))))
      : h('p', { class: 'hint' }, 'None.'));
}
