// The host's method names, in one place: every method of gnosis-host's
// protocol (docs/protocol.md, docs/host-methods.md) the extension calls,
// keyed by the name in upper case with dots as underscores
// (METHODS.CAPABILITIES_LIST is 'capabilities.list'). Code that sends a
// request names its method through METHODS, never with a string literal. A
// Go test (host/method/extension_methods_test.go) fails when METHODS and the
// host's list (host/method/names.go) differ in a name or in order. Pure.

/** The host's protocol methods, in the order of host/method/names.go. */
export const METHODS = Object.freeze({
  HEALTH: 'health',
  CAPABILITIES_LIST: 'capabilities.list',
  CAPABILITIES_DESCRIBE: 'capabilities.describe',
  EXECUTE: 'execute',
  CANCEL: 'cancel',
  REPORT: 'report',
  WORKSPACE_INFO: 'workspace.info',
  WORKSPACE_LIST: 'workspace.list',
  WORKSPACE_READ: 'workspace.read',
  WORKSPACE_CREATE: 'workspace.create',
  WORKSPACE_APPEND: 'workspace.append',
  WORKSPACE_COMMIT: 'workspace.commit',
  WORKSPACE_ABORT: 'workspace.abort',
  RELAY_FETCH: 'relay.fetch',
  POLICY_GET: 'policy.get',
  POLICY_SET: 'policy.set',
  APPROVE: 'approve',
  PROVIDERS_LIST: 'providers.list',
  PROVIDERS_SET: 'providers.set',
  PROVIDERS_REMOVE: 'providers.remove',
  PROVIDERS_CHECK: 'providers.check',
});
