/**
 * The one base of every error this package throws: each carries a `code` string saying what went
 * wrong (the classes refine it to their own union of codes), and `isInstance` recognises one across
 * two copies of the package in one process (a bundled copy and an installed one, or two versions),
 * where `instanceof` fails: each copy has its own classes, so the test is a brand shared through the
 * global symbol registry plus the class names along the prototype chain.
 */

/** The brand every AgentRuntimeError carries, the same symbol in every copy of the package. */
const BRAND: unique symbol = Symbol.for('g2rain-agent-runtime.AgentRuntimeError') as never;

/** Options of an AgentRuntimeError: the standard `cause`. */
export type AgentRuntimeErrorOptions = ErrorOptions;

/** An error of g2rain-agent-runtime: a `code` string, a message, and maybe a `cause`. */
export class AgentRuntimeError extends Error {
  /** What went wrong, as a stable string (each subclass narrows it to its codes). */
  readonly code: string;

  constructor(code: string, message: string, options?: AgentRuntimeErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = new.target.name;
  }

  /**
   * True when `value` is an error of this class (or a subclass), also one made by another copy of the
   * package: `AgentRuntimeError.isInstance(e)` for any of ours, `RunError.isInstance(e)` for a run
   * error. Called on a subclass it checks that class by name.
   */
  static isInstance<T extends AgentRuntimeError>(
    this: abstract new (...args: never[]) => T,
    value: unknown,
  ): value is T {
    if (typeof value !== 'object' || value === null) return false;
    if ((value as { [BRAND]?: unknown })[BRAND] !== true) return false;
    if (value instanceof this) return true;
    const wanted = this.name;
    for (let proto: unknown = value; typeof proto === 'object' && proto !== null;) {
      proto = Object.getPrototypeOf(proto) as unknown;
      const ctor: unknown = (proto as { constructor?: unknown } | null)?.constructor;
      if (typeof ctor === 'function' && ctor.name === wanted) return true;
    }
    return false;
  }
}

Object.defineProperty(AgentRuntimeError.prototype, BRAND, { value: true, enumerable: false });
