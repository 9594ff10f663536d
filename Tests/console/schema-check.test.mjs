// What the console says about a tool's structuredContent against the output schema the tool declared.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { wwwModule } from './www-module.mjs';

const { schemaProblems } = await wwwModule('schema-check.js');

const schema = {
  type: 'object',
  required: ['sum', 'items'],
  properties: {
    sum: { type: 'number' },
    items: { type: 'array', items: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } } },
    mode: { enum: ['fast', 'slow'] },
  },
};

test('a matching value has no problems', () => {
  assert.deepEqual(schemaProblems({ sum: 5, items: [{ id: 1 }], mode: 'fast' }, schema), []);
});

test('each problem names its path', () => {
  assert.deepEqual(schemaProblems({ sum: '5', items: [{ id: 1.5 }, {}], mode: 'warp' }, schema), [
    '$.sum: expected number, got string',
    '$.items[0].id: expected integer, got number',
    '$.items[1].id: required but missing',
    '$.mode: not one of "fast", "slow"',
  ]);
  assert.deepEqual(schemaProblems(null, schema), ['$: expected object, got null']);
});

test('keywords it does not know pass, and a deep or huge value is bounded', () => {
  assert.deepEqual(schemaProblems('x', { type: 'string', format: 'email' }), []);
  const many = schemaProblems(Array.from({ length: 100 }, () => 'x'), { type: 'array', items: { type: 'number' } });
  assert.equal(many.length, 20);
});
