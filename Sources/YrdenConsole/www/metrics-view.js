// The Metrics view: calls, transport errors and latency percentiles per server, from /metrics,
// refreshed while the view is shown.
import { clear, h } from './dom.js';
import { histogramQuantile, parsePrometheus, perServer } from './metrics.js';

const REFRESH_MS = 5000;

export class MetricsView {
  constructor() {
    this.body = document.querySelector('#metrics-table tbody');
    this.updated = document.getElementById('metrics-updated');
    this.states = new Map();
    this.timer = null;
  }

  setServers(views) {
    this.states = new Map([...views].map(([id, v]) => [id, v.state]));
  }

  show(visible) {
    clearInterval(this.timer);
    if (!visible) return;
    this.refresh();
    this.timer = setInterval(() => this.refresh(), REFRESH_MS);
  }

  async refresh() {
    try {
      const response = await fetch('/metrics', { cache: 'no-store' });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      this.render(perServer(parsePrometheus(await response.text())));
      this.updated.textContent = `Updated ${new Date().toLocaleTimeString()}`;
    } catch (error) {
      this.updated.textContent = `Metrics unavailable: ${error.message}`;
    }
  }

  render(stats) {
    const ids = [...new Set([...this.states.keys(), ...stats.keys()])];
    clear(this.body).append(...ids.map((id) => {
      const s = stats.get(id) || { calls: 0, errors: 0, buckets: [] };
      const rate = s.calls ? `${((100 * s.errors) / s.calls).toFixed(1)} %` : '—';
      return h('tr', { dataset: { serverId: id } },
        h('th', { scope: 'row' }, id),
        h('td', {}, this.states.get(id) || '—'),
        h('td', { class: 'num' }, String(s.calls)),
        h('td', { class: 'num' }, String(s.errors)),
        h('td', { class: 'num' }, rate),
        ...[0.5, 0.95, 0.99].map((q) => h('td', { class: 'num' }, seconds(histogramQuantile(q, s.buckets)))));
    }));
  }
}

function seconds(value) {
  if (value === null) return '—';
  return value < 1 ? `${Math.round(value * 1000)} ms` : `${value.toFixed(2)} s`;
}
