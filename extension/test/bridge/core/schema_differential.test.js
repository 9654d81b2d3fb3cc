// The extension's validator of the browser.* calls against the host's own
// (runtime/schema, held to the official JSON Schema suite): the real host
// serves the browser tools' exact schemas from an MCP server
// (tests/e2e/fixtures/browser_schemas_mcp.mjs) and judges every call of the
// schema table; both must find the same calls valid, and the same violations
// (path and keyword) in the others.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRealHost } from '../../shared/real_host.js';
import { browserCapabilities } from '../../../bridge/core/browser_tools.js';
import { compileSchema, validate } from '../../../bridge/core/schema_check.js';
import { CASES } from './browser_cases.js';

const fixture = fileURLToPath(new URL('../../../../tests/e2e/fixtures/browser_schemas_mcp.mjs', import.meta.url));
const schemas = new Map(browserCapabilities().map((c) => [c.name, compileSchema(c.inputSchema)]));

let dir;
let host;
let stop;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gnosis-schemas-'));
  ({ host, stop } = startRealHost({
    dir,
    config: {
      providers: [{ name: 'schemas', command: process.execPath, args: [fixture], prefix: 'b', timeout: '30s' }],
      policy: { default: ['b.*'], origins: {} },
    },
  }));
  // The provider lists its tools once it has started.
  for (let i = 0; i < 200; i++) {
    const list = await host.request('capabilities.list', undefined, { timeoutMs: 10_000 });
    if (list.ok && list.capabilities.filter((c) => c.name.startsWith('b.')).length === schemas.size) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the schema server did not list its tools');
});

after(async () => {
  await stop?.();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the host and the extension judge every call of the table alike: valid, or the same violations', async () => {
  const differ = [];
  for (const [name, args] of CASES) {
    const ours = validate(schemas.get(name), args).map((v) => `${v.path} ${v.keyword}`).sort();
    const reply = await host.request('execute', { capability: `b.${name.split('.')[1]}`, arguments: args }, { timeoutMs: 10_000 });
    const theirs = reply.ok ? [] : reply.code === 'INVALID_ARGUMENTS' ? reply.details.errors.map((v) => `${v.path} ${v.keyword}`).sort() : [`${reply.code}: ${reply.message}`];
    if (JSON.stringify(ours) !== JSON.stringify(theirs)) differ.push(`${name} ${JSON.stringify(args).slice(0, 80)}: extension ${JSON.stringify(ours)}, host ${JSON.stringify(theirs)}`);
  }
  assert.deepEqual(differ, []);
});
