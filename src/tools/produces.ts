import type { RuntimeErrorCodeName } from '../domain/error-codes.js';
import type { HintKey } from '../domain/hints.js';
import type { OutcomeName } from '../domain/outcome.js';

/**
 * One kind of observation a producer (guard, builtin, invoker) makes, declared next to the code that
 * makes it. docs/observations.md is generated from these declarations (`npm run docs:observations`),
 * and a test fails when the file drifts from them.
 */
export interface ProducedCase {
  /** Who produces it: a pipeline step (`ArgPolicy`) or a builtin tool name. */
  producer: string;
  /** When, in a few words. */
  case: string;
  /** The error code, or null for a SUCCESS. */
  code: RuntimeErrorCodeName | null;
  /** For a producer that rewrites another's observation (code null): the outcome it keeps. Default SUCCESS. */
  outcome?: OutcomeName;
  /** The hint of its next step, when the producer always uses the same one. */
  next?: HintKey;
}
