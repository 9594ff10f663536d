// The CSP an MCP App's page runs under: nothing it did not declare, and nothing a declaration can smuggle in.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { wwwModule } from './www-module.mjs';

const { allowList, buildAppCsp } = await wwwModule('app-csp.js');

const directive = (policy, name) => policy.split('; ').find((d) => d.startsWith(`${name} `));

test('an app that declares nothing may connect nowhere and frame nothing', () => {
  const policy = buildAppCsp(undefined);
  assert.equal(directive(policy, 'connect-src'), "connect-src 'none'");
  assert.equal(directive(policy, 'frame-src'), "frame-src 'none'");
  assert.equal(directive(policy, 'default-src'), "default-src 'none'");
});

test('declared domains reach only their own directives', () => {
  const policy = buildAppCsp({ connectDomains: ['https://api.example.com'], resourceDomains: ['https://*.cdn.example'] });
  assert.equal(directive(policy, 'connect-src'), "connect-src 'self' https://api.example.com");
  assert.match(directive(policy, 'script-src'), /https:\/\/\*\.cdn\.example$/);
  assert.doesNotMatch(directive(policy, 'connect-src'), /cdn/);
});

test('a value cannot add a directive, a keyword, a wildcard or plain http elsewhere', () => {
  const policy = buildAppCsp({
    connectDomains: ["https://ok.example; script-src *", '*', "'unsafe-eval'", 'http://evil.example', 'https://a.example/path'],
  });
  assert.equal(directive(policy, 'connect-src'), "connect-src 'self'");
  assert.equal(policy.split('; ').filter((d) => d.startsWith('script-src')).length, 1);
});

test("the console's and the sandbox's origins are never granted", () => {
  const policy = buildAppCsp({ connectDomains: ['http://127.0.0.1:8750', 'https://ok.example'] }, ['http://127.0.0.1:8750']);
  assert.equal(directive(policy, 'connect-src'), "connect-src 'self' https://ok.example");
});

test('permissions map to the iframe allow list, unknown ones ignored', () => {
  assert.equal(allowList({ camera: {}, clipboardWrite: {}, teleport: {} }), 'camera; clipboard-write');
  assert.equal(allowList(undefined), '');
});
