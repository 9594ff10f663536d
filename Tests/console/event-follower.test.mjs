// The console's admin event stream: reopened after a drop, resumed after the last event id it saw (so the
// gateway replays what it missed instead of the console reading every server again), and read afresh when the
// gateway answers events.missed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { wwwModule } from './www-module.mjs';

const { followStream } = await wwwModule('event-follower.js');
const { readEvents } = await wwwModule('sse.js');

/** An SSE body as the gateway writes it: one frame per event, `id:` when it has one. */
function sse(frames) {
  return frames
    .map(({ event, id, data }) => {
      const idLine = id === undefined ? '' : `id: ${id}\n`;
      return `event: ${event}\n${idLine}data: ${JSON.stringify(data)}\n\n`;
    })
    .join('');
}

/**
 * A gateway whose event stream answers each connection with the next of `connections` (an SSE body, then the
 * connection drops), and keeps what the console did: the Last-Event-ID of each connection, each reading of the
 * state and each event applied, in order.
 */
function follow(connections) {
  const log = [];
  const opened = [];
  let done;
  const finished = new Promise((resolve) => (done = resolve));
  let stop;
  stop = followStream({
    open: async (lastEventId) => {
      opened.push(lastEventId);
      const body = connections.shift();
      if (body === undefined) {
        stop();
        done();
        return new Promise(() => {});
      }
      return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
    },
    read: readEvents,
    onOpen: async () => log.push('read state'),
    onEvent: (name, data) => log.push(`${name} ${data.id}`),
    onStatus: () => {},
    wait: async () => {},
  });
  return finished.then(() => ({ log, opened }));
}

test('a reconnect resumes after the last id seen, without reading the state again', async () => {
  const { log, opened } = await follow([
    sse([
      { event: 'server.state', id: '1700000000000001', data: { id: 'a' } },
      { event: 'server.state', id: '1700000000000002', data: { id: 'b' } },
    ]),
    sse([{ event: 'server.removed', id: '1700000000000003', data: { id: 'a' } }]),
  ]);
  assert.deepEqual(opened, [undefined, '1700000000000002', '1700000000000003']);
  assert.deepEqual(log, ['read state', 'server.state a', 'server.state b', 'server.removed a']);
});

test('events.missed makes it read the state again, then apply what follows, and keep its last id', async () => {
  const { log, opened } = await follow([
    sse([{ event: 'server.state', id: '7', data: { id: 'a' } }]),
    sse([
      { event: 'events.missed', data: { after: 7, detail: 'read the current state' } },
      { event: 'server.added', id: '1800000000000001', data: { id: 'c' } },
    ]),
    sse([{ event: 'events.missed', data: { after: 1800000000000001 } }]),
  ]);
  assert.deepEqual(opened, [undefined, '7', '1800000000000001', '1800000000000001']);
  assert.deepEqual(log, ['read state', 'server.state a', 'read state', 'server.added c', 'read state']);
});

test('a connection that ends before any event is reopened as new: the state is read again', async () => {
  const { log, opened } = await follow(['', sse([{ event: 'server.state', id: '5', data: { id: 'a' } }])]);
  assert.deepEqual(opened, [undefined, undefined, '5']);
  assert.deepEqual(log, ['read state', 'read state', 'server.state a']);
});

test('a refused connection is retried with the same last id', async () => {
  const log = [];
  const opened = [];
  const answers = [
    new Response(sse([{ event: 'server.state', id: '9', data: { id: 'a' } }])),
    new Response('', { status: 503 }),
    new Response(sse([{ event: 'server.state', id: '10', data: { id: 'a' } }])),
  ];
  await new Promise((resolve) => {
    const stop = followStream({
      open: async (lastEventId) => {
        opened.push(lastEventId);
        if (answers.length === 0) {
          stop();
          resolve();
          return new Promise(() => {});
        }
        return answers.shift();
      },
      read: readEvents,
      onOpen: async () => log.push('read state'),
      onEvent: (name, data) => log.push(`${name} ${data.id}`),
      onStatus: (state) => log.push(state),
      wait: async () => {},
    });
  });
  assert.deepEqual(opened, [undefined, '9', '9', '10']);
  assert.deepEqual(log, [
    'live', 'read state', 'server.state a', 'reconnecting', 'reconnecting', 'live', 'server.state a', 'reconnecting',
  ]);
});

test('the reader keeps the last id across events without one, as EventSource does', async () => {
  const body =
    'id: 4\nevent: a\ndata: 1\n\nevent: b\ndata: 2\n\n' + 'id: 5\n\nevent: c\ndata: 3\n\nid: \nevent: d\ndata: 4\n\n';
  const seen = [];
  for await (const { event, id } of readEvents(new Response(body))) seen.push([event, id]);
  assert.deepEqual(seen, [['a', '4'], ['b', '4'], ['c', '5'], ['d', '']]);
});
