// The live admin event stream (GET /api/v1/events), kept open and reopened after a drop. Opened without
// Last-Event-ID, nothing is replayed, so `onOpen` runs on every (re)connection for the caller to read the
// current state first.
import { withToken } from './api.js';
import { readEvents } from './sse.js';

export function followEvents({ onOpen, onEvent, onStatus }) {
  let delay = 500;
  const controller = new AbortController();
  (async () => {
    while (!controller.signal.aborted) {
      try {
        const response = await withToken((auth) =>
          fetch('/api/v1/events', {
            headers: { Accept: 'text/event-stream', ...auth },
            signal: controller.signal,
            cache: 'no-store',
          }),
        );
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        onStatus('live');
        delay = 500;
        await onOpen();
        for await (const { event, data } of readEvents(response)) {
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
      onStatus('reconnecting');
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 10_000);
    }
  })();
  return () => controller.abort();
}
