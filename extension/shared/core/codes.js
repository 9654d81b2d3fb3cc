// The error codes the extension reads and writes, in one place: the wire's
// (the host's replies, runtime/wire/errors.go, documented in
// docs/protocol.md) and the browser transport's (the native port failed or
// the host never answered). Code compares err.code and reply.code with these
// names, never with string literals. A Go test (runtime/wire/extension_codes_test.go)
// fails when CODES and the Go constants differ in name or order. Pure.

/** The wire's error codes, in the order of runtime/wire/errors.go. */
export const CODES = Object.freeze({
  INVALID_REQUEST: 'INVALID_REQUEST',
  INVALID_ARGUMENTS: 'INVALID_ARGUMENTS',
  CAPABILITY_NOT_FOUND: 'CAPABILITY_NOT_FOUND',
  PROVIDER_NOT_FOUND: 'PROVIDER_NOT_FOUND',
  EXECUTION_ERROR: 'EXECUTION_ERROR',
  UNKNOWN_METHOD: 'UNKNOWN_METHOD',
  PROVIDER_UNAVAILABLE: 'PROVIDER_UNAVAILABLE',
  TIMEOUT: 'TIMEOUT',
  CANCELLED: 'CANCELLED',
  MESSAGE_TOO_LARGE: 'MESSAGE_TOO_LARGE',
  FORBIDDEN: 'FORBIDDEN',
  NOT_CONFIGURED: 'NOT_CONFIGURED',
  FILE_EXISTS: 'FILE_EXISTS',
  FILE_NOT_FOUND: 'FILE_NOT_FOUND',
  FILE_TOO_LARGE: 'FILE_TOO_LARGE',
  OVERLOADED: 'OVERLOADED',
  TOO_COSTLY: 'TOO_COSTLY',
});

/**
 * The transport's codes (Error.code on a request the native client or the
 * worker's host port rejects): the browser could not start or reach the host
 * (HOST_*), the worker went away during a page's host request
 * (HOST_DISCONNECTED), the host speaks a protocol this extension does not
 * (HOST_INCOMPATIBLE: the request was not sent; shared/core/protocol.js), or
 * the host did not answer in time (TIMEOUT, as on the wire).
 */
export const TRANSPORT_CODES = Object.freeze({
  HOST_NOT_FOUND: 'HOST_NOT_FOUND',
  HOST_FORBIDDEN: 'HOST_FORBIDDEN',
  HOST_EXITED: 'HOST_EXITED',
  HOST_ERROR: 'HOST_ERROR',
  HOST_DISCONNECTED: 'HOST_DISCONNECTED',
  HOST_INCOMPATIBLE: 'HOST_INCOMPATIBLE',
  TIMEOUT: CODES.TIMEOUT,
});
