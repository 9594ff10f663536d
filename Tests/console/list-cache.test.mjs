// The app host's copy of a server's lists: read whole once, then revalidated by ETag before each use.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { wwwModule } from './www-module.mjs';

const { ListCache } = await wwwModule('list-cache.js');

/** A gateway's side: the list at each path with its tag, and every read it was asked for. */
function gateway(lists) {
  const reads = [];
  const read = async (path, etag) => {
    reads.push({ path, etag });
    const current = lists[path];
    if (etag && etag === current.etag) return { status: 304, etag };
    return { status: 200, etag: current.etag, body: current.body };
  };
  return { reads, read };
}

test('a list read once is revalidated, not read whole again, while its tag holds', async () => {
  const lists = { '/servers/a/tools': { etag: '"c1"', body: { tools: [{ name: 'x' }] } } };
  const { reads, read } = gateway(lists);
  const cache = new ListCache(read);
  for (let call = 0; call < 5; call++) assert.deepEqual(await cache.get('/servers/a/tools'), { tools: [{ name: 'x' }] });
  assert.deepEqual(reads.map((r) => r.etag), [undefined, '"c1"', '"c1"', '"c1"', '"c1"']);
});

test('a changed list is read again and its new tag kept', async () => {
  const lists = { '/servers/a/tools': { etag: '"c1"', body: { tools: [{ name: 'x' }] } } };
  const { reads, read } = gateway(lists);
  const cache = new ListCache(read);
  await cache.get('/servers/a/tools');
  lists['/servers/a/tools'] = { etag: '"c2"', body: { tools: [{ name: 'x', _meta: { ui: { visibility: ['model'] } } }] } };
  assert.deepEqual((await cache.get('/servers/a/tools')).tools[0]._meta.ui.visibility, ['model']);
  await cache.get('/servers/a/tools');
  assert.deepEqual(reads.map((r) => r.etag), [undefined, '"c1"', '"c2"']);
});

test('an answer without a tag is used once and not kept', async () => {
  const reads = [];
  const cache = new ListCache(async (path, etag) => {
    reads.push(etag);
    return { status: 200, etag: null, body: { tools: [] } };
  });
  await cache.get('/servers/a/tools');
  await cache.get('/servers/a/tools');
  assert.deepEqual(reads, [undefined, undefined]);
});

test('at most 32 lists are held, the least recently used dropped first', async () => {
  const lists = {};
  for (let i = 0; i < 40; i++) lists[`/servers/s${i}/tools`] = { etag: `"t${i}"`, body: { tools: [] } };
  const { reads, read } = gateway(lists);
  const cache = new ListCache(read);
  for (let i = 0; i < 40; i++) await cache.get(`/servers/s${i}/tools`);
  assert.equal(cache.entries.size, 32);
  reads.length = 0;
  await cache.get('/servers/s0/tools'); // dropped: read whole
  await cache.get('/servers/s39/tools'); // held: revalidated
  assert.deepEqual(reads.map((r) => r.etag), [undefined, '"t39"']);
});
