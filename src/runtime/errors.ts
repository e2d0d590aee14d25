/**
 * The errors the runtime facade throws: `RunError`, told apart by its `code`. Defined in the domain,
 * where the engine below the facade can throw them too.
 */
export { RunError, type RunErrorCode, type RunErrorOptions } from '../domain/run-error.js';
export { AgentRuntimeError } from '../domain/agent-runtime-error.js';
