// The Servers view: one live card per server (state, transport, era, counts, last error, sign-in,
// changed tool definitions to approve, actions and the server's log tail), kept current by the admin event
// stream.
import { servers, toolPins } from './api.js';
import { confirmAction } from './dialogs.js';
import { approvalQuestion } from './pin-approval.js';
import { append, clear, h, idFor, timeAgo } from './dom.js';
import { openServerForm } from './server-form.js';
import { changedPins, changedToolsPart } from './tool-pins.js';

const LOG_POLL_MS = 2000;
const GOOD_STATES = new Set(['connected']);
const BAD_STATES = new Set(['failed']);

export class ServersView {
  constructor({ onChange }) {
    this.list = document.getElementById('server-cards');
    this.empty = document.getElementById('servers-empty');
    this.cards = new Map(); // id → {view, el, body, message, log}
    this.pins = new Map(); // id → the server's changed tool pins
    this.onChange = onChange; // (servers Map) after any change, for the other views
    // id → events seen for that server: an action's answer is older than any event that came after the action
    // began (a server that fails at once has its `failed` event ahead of the answer saying `idle`), so the answer
    // is drawn only when no event came meanwhile (a new server's, only when no event has drawn its card).
    this.eventsSeen = new Map();
    document.getElementById('add-server').addEventListener('click', () =>
      openServerForm({ onSaved: (v) => this.cards.has(v.id) || this.upsert(v) }));
  }

  get views() {
    return new Map([...this.cards].map(([id, card]) => [id, card.view]));
  }

  /** Replaces every card with the gateway's current list (after each (re)connection of the event stream). */
  async reload() {
    const { servers: list } = await servers.list();
    const ids = new Set(list.map((s) => s.id));
    for (const id of [...this.cards.keys()]) if (!ids.has(id)) this.remove(id);
    for (const view of list) this.upsert(view, false);
    this.#changed();
    await this.#reloadPins();
  }

  /** Reads the changed tool definitions again, and redraws the cards they were or are on. */
  async #reloadPins() {
    const before = this.pins;
    try {
      this.pins = await changedPins();
    } catch (error) {
      console.warn('tool pins', error);
      return;
    }
    for (const id of new Set([...before.keys(), ...this.pins.keys()])) {
      const card = this.cards.get(id);
      if (card) this.#render(card);
    }
  }

  handleEvent(name, data) {
    const id = data?.server?.id ?? data?.id;
    if (id !== undefined) this.eventsSeen.set(id, (this.eventsSeen.get(id) ?? 0) + 1);
    if (name === 'server.added' || name === 'server.state') this.upsert(data.server);
    else if (name === 'server.removed') this.remove(data.id);
    else if (name === 'server.catalog') {
      const card = this.cards.get(data.id);
      if (card) this.upsert({ ...card.view, counts: data.counts });
    } else if (name === 'auth.progress') {
      const card = this.cards.get(data.id);
      if (card) this.upsert({ ...card.view, auth: data.auth });
    } else if (name.startsWith('tool.')) {
      this.#reloadPins();
    }
  }

  upsert(view, notify = true) {
    let card = this.cards.get(view.id);
    if (!card) {
      card = this.#createCard(view);
      this.cards.set(view.id, card);
      this.list.append(card.el);
    }
    card.view = view;
    this.#render(card);
    this.empty.hidden = this.cards.size > 0;
    if (notify) this.#changed();
  }

  remove(id) {
    const card = this.cards.get(id);
    if (!card) return;
    clearInterval(card.log.timer);
    card.el.remove();
    this.cards.delete(id);
    this.empty.hidden = this.cards.size > 0;
    this.#changed();
  }

  #changed() {
    this.onChange?.(this.views);
  }

  #createCard(view) {
    const headingId = idFor('server', view.id);
    const body = h('div', { class: 'card-body' });
    const message = h('p', { class: 'card-message', role: 'alert' });
    const lines = h('ol', { class: 'log-lines', 'aria-label': `Log of ${view.id}` });
    const details = h('details', { class: 'log' }, h('summary', {}, 'Log'), lines);
    const el = h('li', { class: 'card', 'aria-labelledby': headingId, dataset: { serverId: view.id } }, body, message, details);
    const card = { view, el, body, message, headingId, log: { details, lines, since: null, timer: null } };
    details.addEventListener('toggle', () => this.#followLog(card));
    return card;
  }

  #render(card) {
    const v = card.view;
    const state = v.state;
    const tone = GOOD_STATES.has(state) ? 'good' : BAD_STATES.has(state) ? 'bad' : 'neutral';
    card.el.dataset.state = state;
    const counts = v.counts || { tools: 0, prompts: 0, resources: 0 };
    clear(card.body);
    append(card.body, [
      h('div', { class: 'card-head' },
        h('h3', { id: card.headingId }, v.id),
        h('span', { class: `state state-${tone}`, dataset: { state } }, state)),
      h('dl', { class: 'facts' },
        fact('Transport', v.transport),
        fact('Era', v.era || '—'),
        fact('Tools', counts.tools), fact('Prompts', counts.prompts), fact('Resources', counts.resources),
        v.serverInfo && fact('Server', `${v.serverInfo.name} ${v.serverInfo.version || ''}`.trim()),
        v.connectedSince && fact('Connected', timeAgo(v.connectedSince))),
      v.lastError && h('p', { class: 'last-error' },
        h('strong', {}, `Last error (${v.lastError.kind}${v.lastError.httpStatus ? `, HTTP ${v.lastError.httpStatus}` : ''}): `),
        v.lastError.message),
      v.reconnect && h('p', { class: 'hint' },
        `Retry ${v.reconnect.attempt} at ${new Date(v.reconnect.nextRetryAt).toLocaleTimeString()}`),
      this.#authPart(card),
      changedToolsPart(this.pins.get(v.id), (pin) => this.#approve(card, pin)),
      this.#actions(card),
    ]);
  }

  #authPart(card) {
    const { auth, config, id } = card.view;
    if (config?.auth?.type !== 'oauth') return null;
    const status = auth?.status || 'needsReauth';
    const waiting = status === 'waitingForUser' && auth.authorizationURL;
    return h('div', { class: 'auth' },
      h('p', {}, h('strong', {}, 'Sign-in: '), status, auth?.reason ? ` — ${auth.reason}` : ''),
      waiting && h('a', { class: 'button-link', href: auth.authorizationURL, target: '_blank', rel: 'noopener noreferrer' },
        'Open the sign-in page'),
      h('div', { class: 'actions' },
        button(status === 'complete' ? 'Sign in again' : 'Sign in', () => this.#signIn(card)),
        status === 'complete' && button('Sign out', () => this.#run(card, () => servers.signOut(id)))));
  }

  #actions(card) {
    const { id, enabled, state } = card.view;
    const active = !['disconnected', 'disabled', 'stopped'].includes(state);
    return h('div', { class: 'actions' },
      button('Edit', () => openServerForm({ id, onSaved: (v) => this.upsert(v) })),
      button(enabled ? 'Disable' : 'Enable', () => this.#run(card, () => servers.patch(id, { disabled: enabled }))),
      enabled && button('Restart', () => this.#run(card, () => servers.action(id, 'restart'))),
      enabled && button(active ? 'Disconnect' : 'Connect',
        () => this.#run(card, () => servers.action(id, active ? 'disconnect' : 'connect'))),
      button('Remove', async () => {
        if (await confirmAction(`Remove ${id}?`, 'The server is stopped and its entry is deleted from the config.', 'Remove')) {
          await this.#run(card, () => servers.remove(id));
          this.remove(id);
        }
      }, 'danger'));
  }

  /** Draws `view`, an action's answer, unless an event of its server came since `seenBefore` were counted. */
  #answered(view, seenBefore) {
    if (view?.id && (this.eventsSeen.get(view.id) ?? 0) === seenBefore) this.upsert(view);
  }

  async #run(card, action) {
    card.message.textContent = '';
    const seenBefore = this.eventsSeen.get(card.view.id) ?? 0;
    try {
      this.#answered(await action(), seenBefore);
    } catch (error) {
      card.message.textContent = error.message;
    }
  }

  async #approve(card, pin) {
    card.message.textContent = '';
    const question = approvalQuestion(pin);
    if (!await confirmAction(question.title, question.detail, question.okLabel)) return;
    try {
      await toolPins.approve(pin.server, pin.tool, pin.change.digest);
    } catch (error) {
      card.message.textContent = error.message;
    }
    await this.#reloadPins();
  }

  async #signIn(card) {
    card.message.textContent = '';
    try {
      const progress = await servers.signIn(card.view.id);
      this.upsert({ ...card.view, auth: progress });
      // The URL usually comes in a later auth.progress event; the link on the card then opens it.
      if (progress?.authorizationURL) window.open(progress.authorizationURL, '_blank', 'noopener');
    } catch (error) {
      card.message.textContent = error.message;
    }
  }

  // The log tail is read while its <details> is open: the event stream carries states, not log lines.
  #followLog(card) {
    const log = card.log;
    clearInterval(log.timer);
    if (!log.details.open) return;
    const poll = async () => {
      try {
        const { entries } = await servers.logs(card.view.id, log.since);
        for (const entry of entries) {
          log.lines.append(h('li', { class: `log-${entry.level}` },
            h('time', { datetime: entry.time }, new Date(entry.time).toLocaleTimeString()), ' ',
            h('span', { class: 'log-event' }, entry.event), ' ', entry.message));
          log.since = entry.time;
        }
        while (log.lines.childElementCount > 500) log.lines.firstElementChild.remove();
        if (entries.length) log.lines.scrollTop = log.lines.scrollHeight;
      } catch (error) {
        console.warn('log', error);
      }
    };
    poll();
    log.timer = setInterval(poll, LOG_POLL_MS);
  }
}

function fact(label, value) {
  return [h('dt', {}, label), h('dd', {}, String(value))];
}

function button(label, onclick, cls = '') {
  return h('button', { type: 'button', class: cls, onclick }, label);
}
