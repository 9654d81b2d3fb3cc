import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CodedError } from '../../../shared/core/coded_error.js';
import { ContextError } from '../../../agent/core/context_error.js';
import { TransferError, formatSize } from '../../../agent/core/file_transfer.js';
import { ModelError } from '../../../agent/core/model_client.js';
import { RelayError } from '../../../agent/core/relay_client.js';
import { WorkspaceError } from '../../../agent/core/workspace_client.js';

test('every module error carries its code, its own name, and is a CodedError', () => {
  for (const Cls of [ContextError, TransferError, ModelError, RelayError, WorkspaceError]) {
    const err = new Cls('SOME_CODE', 'what went wrong');
    assert.ok(err instanceof CodedError && err instanceof Error, Cls.name);
    assert.equal(err.name, Cls.name);
    assert.equal(err.code, 'SOME_CODE');
    assert.equal(err.message, 'what went wrong');
  }
  assert.equal(new RelayError('FORBIDDEN', 'no').retryable, false);
  assert.equal(new RelayError('HOST_ERROR', 'later').retryable, true);
});

test('formatSize gives the readable size and the exact byte count', () => {
  const table = [
    [1, '1 byte'],
    [1023, '1,023 bytes'],
    [1536, '1.5 KiB (1,536 bytes)'],
    [3 * 1024 * 1024, '3.0 MiB (3,145,728 bytes)'],
  ];
  for (const [n, want] of table) assert.equal(formatSize(n), want, String(n));
});
