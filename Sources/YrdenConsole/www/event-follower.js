// Keeps the admin event stream open: reopened after a drop (500 ms, doubling up to 10 s), resumed after the
// last event id it saw, so the gateway replays what it missed meanwhile. `onOpen` (read the current state)
// runs on the first connection, and again whenever the gateway answers `events.missed`: it no longer holds
// every event after that id, or it restarted since. Imports nothing, so Node's tests load it as it is.

/**
 * open(lastEventId, signal) → a fetch Response (lastEventId is undefined on the first connection);
 * read(response) → an async iterable of {event, data, id}, as sse.js's readEvents yields;
 * wait(ms) → a promise resolved after that delay. Returns a function that closes the stream for good.
 */
export function followStream({ open, read, onOpen, onEvent, onStatus, wait }) {
  let delay = 500;
  let lastEventId;
  const controller = new AbortController();
  (async () => {
    while (!controller.signal.aborted) {
      try {
        const response = await open(lastEventId, controller.signal);
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        onStatus('live');
        delay = 500;
        // A stream resumed after an id replays what was missed; one opened without starts from now.
        if (lastEventId === undefined) await onOpen();
        for await (const { event, data, id } of read(response)) {
          // An empty id resets it (EventSource then sends none): the next connection starts afresh.
          if (id !== undefined) lastEventId = id === '' ? undefined : id;
          if (event === 'events.missed') {
            await onOpen();
            continue;
          }
          try {
            onEvent(event, JSON.parse(data));
          } catch (error) {
            console.warn('event not applied', event, error);
          }
        }
      } catch (error) {
        if (controller.signal.aborted) return;
        console.warn('event stream', error);
      }
      if (controller.signal.aborted) return;
      onStatus('reconnecting');
      await wait(delay);
      delay = Math.min(delay * 2, 10_000);
    }
  })();
  return () => controller.abort();
}
