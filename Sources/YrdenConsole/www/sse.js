// Server-Sent Events read from a fetch() body. EventSource cannot send an Authorization header, and
// /mcp answers a POST with a stream, so both the admin events and MCP calls parse the stream here.

/**
 * Yields {event, data, id} for each dispatched event of `response.body`; comments are skipped. `id` is the
 * stream's last event id as EventSource keeps it: set by an `id:` field (one holding a NUL is ignored) and kept
 * for the events after it until another; undefined before any.
 */
export async function* readEvents(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let event = '';
  let data = [];
  let id;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let newline;
      while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
        if (line === '') {
          if (data.length) yield { event: event || 'message', data: data.join('\n'), id };
          event = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
        else if (field === 'id' && !value.includes('\0')) id = value;
      }
    }
  } finally {
    reader.releaseLock();
  }
}
