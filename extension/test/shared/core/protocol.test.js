// The protocol handshake: which hosts the extension speaks to, and which side
// a misfit names as older.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PROTOCOL, hostProtocol, incompatibility, protocolFit, rangeText } from '../../../shared/core/protocol.js';

test("a host's protocol: its number, 1 when health has none, null when unreadable", () => {
  const table = [
    [{ ok: true, protocol: 2 }, 2],
    [{ ok: true, protocol: 7 }, 7],
    [{ ok: true, version: '0.0.9' }, 1],
    [null, 1],
    [{ ok: true, protocol: '2' }, null],
    [{ ok: true, protocol: 1.5 }, null],
    [{ ok: true, protocol: 0 }, null],
    [{ ok: true, protocol: null }, null],
  ];
  for (const [health, want] of table) assert.equal(hostProtocol(health), want, JSON.stringify(health));
});

test('fit: inside the range fits; below it the host is older; above it the extension is', () => {
  const range = { min: 2, max: 3 };
  const table = [
    [{ version: '0.0.9' }, { fits: false, older: 'host', host: 1 }],
    [{ protocol: 2 }, { fits: true, older: null, host: 2 }],
    [{ protocol: 3 }, { fits: true, older: null, host: 3 }],
    [{ protocol: 4 }, { fits: false, older: 'extension', host: 4 }],
    [{ protocol: 'two' }, { fits: false, older: null, host: null }],
  ];
  for (const [health, want] of table) assert.deepEqual(protocolFit(health, range), { ...want, min: 2, max: 3 }, JSON.stringify(health));
});

test('the declared range holds the protocol that brought report and providers.*', () => {
  assert.ok(Number.isInteger(PROTOCOL.min) && PROTOCOL.min >= 2 && PROTOCOL.max >= PROTOCOL.min);
  assert.ok(Object.isFrozen(PROTOCOL));
  assert.equal(rangeText({ min: 2, max: 2 }), '2');
  assert.equal(rangeText({ min: 2, max: 3 }), '2 to 3');
});

test('a misfit says which side is older, both versions and both protocols; a fit says nothing', () => {
  const range = { min: 2, max: 2 };
  assert.equal(incompatibility({ protocol: 2, version: '0.1.0' }, { range }), null);
  const old = incompatibility({ version: '0.0.9' }, { extensionVersion: '0.1.0', range });
  assert.equal(old.title, 'gnosis-host is older than this extension');
  assert.match(old.message, /^gnosis-host 0\.0\.9 speaks protocol 1; this extension \(0\.1\.0\) speaks protocol 2\. Update gnosis-host/);
  const newer = incompatibility({ version: '0.3.0', protocol: 3 }, { extensionVersion: '0.1.0', range });
  assert.equal(newer.title, 'This extension is older than gnosis-host');
  assert.match(newer.message, /Update the extension/);
  const odd = incompatibility({ protocol: 'x' }, { range });
  assert.match(odd.message, /reports protocol "x"/);
  for (const t of [old, newer, odd]) assert.doesNotMatch(t.message + t.title, /`/);
});
