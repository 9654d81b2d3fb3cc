// The setup page's rules: when it opens, the MCP server form read into the
// host's params and filled back (saved environment values never shown), the
// Munim shortcut, what a check says at the field, where a host error goes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MUNIM, checkNote, fieldError, formFromProvider, munimParams, opensSetup, providerParams, suggestName } from '../../../bridge/core/setup_rules.js';

test('the setup page opens on install, and on an update only when the protocols changed', () => {
  const range = { min: 2, max: 2 };
  const table = [
    ['install', undefined, true],
    ['install', { min: 2, max: 2 }, true],
    ['update', { min: 2, max: 2 }, false],
    ['update', { min: 1, max: 1 }, true],
    ['update', { min: 2, max: 3 }, true],
    ['update', undefined, true],
    ['chrome_update', undefined, false],
    ['shared_module_update', { min: 1, max: 1 }, false],
  ];
  for (const [reason, seen, want] of table) assert.equal(opensSetup(reason, seen, range), want, `${reason} ${JSON.stringify(seen)}`);
});

test('the form becomes providers.set params: one argument per line, NAME=value, a name alone keeps its value', () => {
  const { params, errors } = providerParams({
    name: ' files ', command: '/usr/bin/node', args: '/srv/server.js\n\n/home/me/My Files\n', env: 'API_KEY=sk-1=2\nKEEP_ME\n', prefix: 'fs', timeout: '90', startTimeout: '',
  });
  assert.deepEqual(errors, {});
  assert.deepEqual(params, { name: 'files', command: '/usr/bin/node', args: ['/srv/server.js', '/home/me/My Files'], env: { API_KEY: 'sk-1=2', KEEP_ME: null }, prefix: 'fs', timeout: 90 });
});

test('the form says what is missing or malformed, per field', () => {
  const { errors } = providerParams({ name: '', command: '', args: '', env: '1BAD=x', prefix: '', timeout: 'soon', startTimeout: '-1' });
  assert.deepEqual(Object.keys(errors).sort(), ['command', 'env', 'name', 'startTimeout', 'timeout']);
  assert.match(errors.env, /Line 1: "1BAD" is not a variable name/);
});

test('a listed server fills the form back; its saved values are names only', () => {
  const listed = { name: 'munim', prefix: 'computer', command: 'C:\\Tools\\Munim\\munim.exe', args: ['--stdio'], envNames: ['MUNIM_TOKEN'], timeout: 120, startTimeout: 30, state: 'ready' };
  const form = formFromProvider(listed);
  assert.deepEqual(form, { name: 'munim', command: 'C:\\Tools\\Munim\\munim.exe', args: '--stdio', env: 'MUNIM_TOKEN', prefix: 'computer', timeout: '120', startTimeout: '30' });
  assert.deepEqual(providerParams(form).params.env, { MUNIM_TOKEN: null }, 'saving unchanged keeps the stored value');
});

test('the Munim shortcut asks only for the path; a configured Munim keeps the rest', () => {
  assert.deepEqual(munimParams(' /opt/munim/munim '), { name: MUNIM, command: '/opt/munim/munim' });
  const existing = { name: 'munim', prefix: 'pc', args: ['--stdio'], envNames: ['TOKEN'], timeout: 60, startTimeout: 45 };
  assert.deepEqual(munimParams('/new/munim', existing), { name: 'munim', command: '/new/munim', args: ['--stdio'], env: { TOKEN: null }, prefix: 'pc', timeout: 60, startTimeout: 45 });
});

test("a check's finding at the field: ok with tools, ok without tools, and failures with the server's words", () => {
  assert.deepEqual(checkNote({ status: 'ok', message: 'x answered and lists 3 tools', toolCount: 3 }), { tone: 'ok', text: 'x answered and lists 3 tools', fix: '', stderr: '', usable: true });
  assert.equal(checkNote({ status: 'ok', message: 'm', toolCount: 0, fix: 'check its arguments' }).tone, 'warn');
  const failed = checkNote({ status: 'failed', message: 'did not start', fix: 'run it by hand', stderr: 'Error: Cannot find module' });
  assert.deepEqual([failed.tone, failed.usable, failed.stderr], ['bad', false, 'Error: Cannot find module']);
  assert.equal(checkNote({ status: 'not-found', message: 'nothing at /x' }).usable, false);
});

test('a host error about one field goes to that field, without the field name in front', () => {
  assert.deepEqual(fieldError({ code: 'INVALID_ARGUMENTS', error: 'command: /opt/munim is a folder: give the program inside it', details: { field: 'command' } }),
    { field: 'command', text: '/opt/munim is a folder: give the program inside it' });
  assert.deepEqual(fieldError({ code: 'INVALID_ARGUMENTS', error: 'prefix: "computer" is used by munim', details: { field: 'prefix' } }).field, 'prefix');
  assert.deepEqual(fieldError({ code: 'EXECUTION_ERROR', error: 'cannot write the config' }), { field: '', text: 'cannot write the config' });
  assert.equal(fieldError({ error: 'x', details: { field: 'bogus' } }).field, '');
});

test('a new server is named after its program, and never after one already there', () => {
  assert.equal(suggestName('/usr/local/bin/mcp-server-files'), 'mcp-server-files');
  assert.equal(suggestName('C:\\Tools\\Munim\\Munim.exe', ['munim']), 'munim-2');
  assert.equal(suggestName('/usr/bin/node', ['node', 'node-2']), 'node-3');
  assert.equal(suggestName(''), 'server');
});
