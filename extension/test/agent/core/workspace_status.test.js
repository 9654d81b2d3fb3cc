import assert from 'node:assert/strict';
import { test } from 'node:test';
import { workspaceStatus } from '../../../agent/core/workspace_status.js';

test('no workspace folder: said once, with how to set one, not the host\'s same words in brackets', () => {
  const s = workspaceStatus({ configured: false, dir: '', error: 'no workspace folder is configured: set "workspace": {"dir": "..."} in the host configuration' });
  assert.equal(s.tone, 'warning');
  assert.match(s.text, /^No workspace folder is set up\. To let the agent upload and download files, add "workspace"/);
  assert.doesNotMatch(s.text, /configured/i, 'the host\'s sentence is not repeated');
  assert.equal(s.text.match(/workspace folder/gi).length, 1);
});

test('a folder set but unusable: the host\'s reason, and what to fix', () => {
  const s = workspaceStatus({ configured: false, dir: 'rel/dir', error: 'workspace folder "rel/dir" is not an absolute path' });
  assert.equal(s.text, 'The workspace folder "rel/dir" is not an absolute path. Fix "workspace" in the gnosis-host configuration file (an absolute path to a folder that exists), then restart the browser.');
  assert.match(workspaceStatus({ dir: '/gone', error: 'permission denied' }).text, /^The workspace folder \/gone cannot be used: permission denied\. Fix/);
});

test('a usable folder: where it is and how much room it has', () => {
  const s = workspaceStatus({ configured: true, dir: '/home/a/gnosis', freeBytes: 3 * 2 ** 30 });
  assert.equal(s.tone, 'ok');
  assert.match(s.text, /^Workspace folder: \/home\/a\/gnosis, 3\.0 GiB free\. /);
  assert.match(workspaceStatus({ configured: true, dir: '/w' }).text, /^Workspace folder: \/w\. /);
});
