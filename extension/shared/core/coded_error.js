// One error shape for the agent's modules: a stable machine-readable .code
// beside a message written for the user (and the model). Each module names
// its own subclass so callers can tell where a failure came from.

/** An Error with a stable .code; .name is the subclass's name. */
export class CodedError extends Error {
  /**
   * @param {string} code stable code, e.g. 'FILE_EXISTS'
   * @param {string} message for people
   */
  constructor(code, message) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}
