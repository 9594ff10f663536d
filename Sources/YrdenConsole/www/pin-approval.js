// What the console asks before it approves a changed tool definition: the definition that clients will be
// served from then on, in words, so that one click never approves what the operator has not looked at (as
// Remove asks before it removes). Imports nothing: Node's tests load it as it is.

/** Longest text of a field shown in the question; the card shows it whole. */
const MAX_TEXT = 400;

/**
 * The confirmation for approving `pin` (a changed pin of GET /api/v1/tool-pins): `{title, detail, okLabel}`,
 * the detail plain text in lines.
 */
export function approvalQuestion(pin) {
  const diff = pin.change.diff;
  const lines = [
    `Clients will be served ${pin.tool} as ${pin.server} lists it now, and this definition `
      + `(${pin.change.digest.slice(0, 12)}…) becomes the pinned one.`,
    `Changed: ${diff.fields.join(', ')}.`,
  ];
  for (const [field, text] of Object.entries(diff.texts)) {
    lines.push(`${field} now: ${clipped(text.after ?? '(none)')}`);
  }
  const places = diff.paths.length + (diff.morePaths ?? 0);
  if (places > 0) lines.push(`Schema: ${places} place${places === 1 ? '' : 's'} changed (listed on the card).`);
  return { title: `Approve ${pin.tool} of ${pin.server}?`, detail: lines.join('\n'), okLabel: 'Approve' };
}

function clipped(text) {
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT)}… (${text.length} characters in all)`;
}
