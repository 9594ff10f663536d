// The live admin event stream (GET /api/v1/events), read with fetch rather than EventSource, which cannot
// send the admin token: so the console itself sends `Last-Event-ID` when it reconnects (event-follower.js).
import { withToken } from './api.js';
import { followStream } from './event-follower.js';
import { readEvents } from './sse.js';

export function followEvents({ onOpen, onEvent, onStatus }) {
  return followStream({
    open: (lastEventId, signal) =>
      withToken((auth) =>
        fetch('/api/v1/events', {
          headers: {
            Accept: 'text/event-stream',
            ...auth,
            ...(lastEventId === undefined ? {} : { 'Last-Event-ID': lastEventId }),
          },
          signal,
          cache: 'no-store',
        }),
      ),
    read: readEvents,
    onOpen,
    onEvent,
    onStatus,
    wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  });
}
