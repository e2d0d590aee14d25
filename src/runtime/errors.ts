/**
 * The errors the runtime facade throws: `RunError` with its `code`, and the deprecated per-case names.
 * Defined in the domain, where the engine below the facade can throw them too.
 */
export {
  RunError,
  RunConflictError,
  RunNotFoundError,
  RuntimeInputError,
  RunInputError,
  type RunErrorCode,
  type RunErrorOptions,
} from '../domain/run-error.js';
