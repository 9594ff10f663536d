// Changed tool definitions on a server's card: what changed (texts before and after, schema places) and an
// Approve button, which calls the admin API's approve with the digest shown, so a definition that changed
// again after it was shown is not approved by mistake.
import { toolPins } from './api.js';
import { h } from './dom.js';

/** The changed pins of every server, as a Map of server id → [pin]. */
export async function changedPins() {
  const { pins } = await toolPins.list();
  const byServer = new Map();
  for (const pin of pins) {
    if (pin.state !== 'changed') continue;
    if (!byServer.has(pin.server)) byServer.set(pin.server, []);
    byServer.get(pin.server).push(pin);
  }
  return byServer;
}

/** The card's part for `pins` (none when there are none); `approve(pin)` runs when its button is pressed. */
export function changedToolsPart(pins, approve) {
  if (!pins?.length) return null;
  return h('div', { class: 'pins', role: 'group', 'aria-label': 'Changed tool definitions' },
    h('p', {}, h('strong', {}, 'Changed tool definitions')),
    h('ul', {}, pins.map((pin) => changedTool(pin, approve))));
}

function changedTool(pin, approve) {
  const diff = pin.change.diff;
  const status = pin.withheld ? 'withheld from clients until approved' : 'still served, flagged';
  return h('li', { class: 'pin', dataset: { tool: pin.tool, withheld: String(pin.withheld) } },
    h('p', {}, h('code', {}, pin.tool), ` — ${diff.fields.join(', ')} changed; ${status}`),
    Object.entries(diff.texts).map(([field, text]) => h('dl', { class: 'pin-text' },
      h('dt', {}, `${field} was`), h('dd', {}, text.before ?? '(none)'),
      h('dt', {}, `${field} now`), h('dd', {}, text.after ?? '(none)'))),
    diff.paths.length > 0 && h('ul', { class: 'pin-paths' },
      diff.paths.map((place) => h('li', {}, h('code', {}, place.path), ` ${place.change}`)),
      diff.morePaths > 0 && h('li', {}, `and ${diff.morePaths} more`)),
    h('button', { type: 'button', onclick: () => approve(pin) }, `Approve ${pin.tool}`));
}
