import { RuntimeErrorCode } from '../../domain/error-codes.js';
import { isUserCodeNumber, USER_CODE_RANGE } from '../../domain/guard-codes.js';
import type { Locale } from '../../domain/locale.js';
import type { EvidenceRecord } from '../../records/run-state.js';
import type { GuardVerdict } from './verdict.js';
import { AgentRuntimeError } from '../../domain/agent-runtime-error.js';

// A user interceptor (docs/interceptors.md): a named guard with its own codes, asked about every call
// of a real tool before it is sent (`before`) and about every successful result (`after`).

/** The outcome a guard's code gives its observation. */
export type GuardOutcome = 'REJECTED' | 'DEFERRED' | 'FAILED';

/** One code of a guard: its number (in USER_CODE_RANGE) and its outcome. */
export interface GuardCodeSpec {
  readonly number: number;
  readonly outcome: GuardOutcome;
}

/** A guard's codes by name (`REFUND_OVER_LIMIT`: upper case, digits and `_`). */
export type GuardCodes = Readonly<Record<string, GuardCodeSpec>>;

/** The names of `Codes` whose outcome is `O`. */
export type CodeOf<Codes extends GuardCodes, O extends GuardOutcome> = {
  [K in keyof Codes]: Codes[K]['outcome'] extends O ? K : never;
}[keyof Codes] &
  string;

/** A call's arguments as a guard sees them: checked against the tool's input schema, which fixes their shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- their shape is the tool's schema's, checked before a guard runs
export type GuardArgs = Readonly<Record<string, any>>;

/** What a guard sees of a call: frozen copies, changing them changes nothing. */
export interface GuardCallView {
  /** The tool's name as the model sees it. */
  readonly tool: string;
  /** Where the tool lives (guards see only real tools, never builtins). */
  readonly kind: 'mcp' | 'local';
  /** True for a write tool. */
  readonly write: boolean;
  /** The arguments, valid for the tool's schema and with their provenance checked. */
  readonly args: GuardArgs;
  /** The input the run was started with. */
  readonly input: unknown;
  readonly runId: string;
  /** The node the call is made in, and the outputs it has set so far. */
  readonly node: { readonly id: string; readonly outputs: Readonly<Record<string, unknown>> };
  /** Every call of this run that executed so far, oldest first. */
  readonly evidence: readonly Readonly<EvidenceRecord>[];
  /** The language of the texts the model sees. */
  readonly locale: Locale;
}

/** What `before` gets: the call, and the two verdicts it may give. */
export interface BeforeCall<Codes extends GuardCodes> extends GuardCallView {
  /** The call breaks a rule: REJECTED with `code`, and the model is told `next`. */
  reject(code: CodeOf<Codes, 'REJECTED'>, reason: string, next: string): GuardVerdict;
  /** The call is fine but `prerequisite` must happen first: DEFERRED with `code`. */
  defer(code: CodeOf<Codes, 'DEFERRED'>, reason: string, prerequisite: string): GuardVerdict;
}

/** A successful result as `after` sees it (a frozen copy). */
export interface GuardResult {
  /** The success summary the model would see. */
  readonly summary: string;
  /** The tool's result (docs/flows.md: structured content, else its JSON text, else the text). */
  readonly data: unknown;
}

/** What `after` gets: the call, its successful result, and the one verdict it may give. */
export interface AfterCall<Codes extends GuardCodes> extends GuardCallView {
  readonly result: GuardResult;
  /** The result breaks a business rule: FAILED with `code` (the tool did run). */
  fail(code: CodeOf<Codes, 'FAILED'>, reason: string, next: string): GuardVerdict;
}

/** What a guard's step returns: a verdict, or nothing (`undefined`, `null`, `false`) to let the call go on. */
export type GuardAnswer = GuardVerdict | undefined | null | false | void;

/** What `defineGuard` takes. */
export interface GuardSpec<Codes extends GuardCodes> {
  /** Names the guard in logs and in the runtime's own failures (letters, digits, `_ . -`). */
  readonly name: string;
  readonly codes: Codes;
  /** Asked before a real tool is called (after the argument and provenance checks, before the write gate). */
  readonly before?: (call: BeforeCall<Codes>) => GuardAnswer | Promise<GuardAnswer>;
  /** Asked about each successful result of a real tool (after its response contract). */
  readonly after?: (call: AfterCall<Codes>) => GuardAnswer | Promise<GuardAnswer>;
}

/**
 * A guard made by `defineGuard`, for `createRuntime({ guards })` and `--guards MODULE`. Its codes are
 * typed where they are used, in the steps given to `defineGuard`; here any guard is a `Guard`.
 */
export interface Guard {
  readonly name: string;
  readonly codes: GuardCodes;
  readonly before?: (call: BeforeCall<GuardCodes>) => GuardAnswer | Promise<GuardAnswer>;
  readonly after?: (call: AfterCall<GuardCodes>) => GuardAnswer | Promise<GuardAnswer>;
  readonly [GUARD]: true;
}

/** Marks guards; a registered symbol, so that guards made by another copy of the package are recognised. */
const GUARD: unique symbol = Symbol.for('g2rain-agent-runtime.guard') as never;

/** A guard or a list of guards that cannot be used: thrown by `defineGuard` and `createRuntime`. */
export class GuardDefinitionError extends AgentRuntimeError {
  declare readonly code: 'GUARD_DEFINITION_INVALID';

  constructor(message: string) {
    super('GUARD_DEFINITION_INVALID', message);
  }
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const CODE_NAME = /^[A-Z][A-Z0-9_]{0,63}$/;
const OUTCOMES: readonly string[] = ['REJECTED', 'DEFERRED', 'FAILED'];

/**
 * Defines a user guard (docs/interceptors.md). Throws GuardDefinitionError for a bad name, a code whose
 * name is the runtime's or not upper case, whose number is outside USER_CODE_RANGE or used twice, or
 * whose outcome is not REJECTED, DEFERRED or FAILED, and for a guard with neither `before` nor `after`.
 */
export function defineGuard<const Codes extends GuardCodes>(spec: GuardSpec<Codes>): Guard {
  checkSpec(spec);
  const codes: GuardCodes = Object.freeze(
    Object.fromEntries(
      Object.entries(spec.codes).map(([k, c]) => [
        k,
        Object.freeze({ number: c.number, outcome: c.outcome }),
      ]),
    ),
  );
  // The steps were typed by the guard's own codes; the runtime calls them with calls of exactly those.
  const steps = spec as unknown as Pick<Guard, 'before' | 'after'>;
  return Object.freeze({
    name: spec.name,
    codes,
    ...(steps.before ? { before: steps.before } : {}),
    ...(steps.after ? { after: steps.after } : {}),
    [GUARD]: true as const,
  });
}

/** True for a guard made by `defineGuard` (of any copy of this package). */
export function isGuard(value: unknown): value is Guard {
  return typeof value === 'object' && value !== null && (value as { [GUARD]?: unknown })[GUARD] === true;
}

/**
 * Checks the guards a runtime is given: each made by `defineGuard` (and still valid), no two with the
 * same name, no code name or number used by two of them. Returns them in order; throws GuardDefinitionError.
 */
export function checkGuards(guards: unknown): readonly Guard[] {
  if (!Array.isArray(guards))
    throw new GuardDefinitionError(
      `guards must be a list of guards made with defineGuard, not ${guards === null ? 'null' : typeof guards}: write guards: [myGuard]`,
    );
  const names = new Set<string>();
  const codes = new Map<string, string>();
  const numbers = new Map<number, string>();
  return guards.map((guard, i) => {
    if (!isGuard(guard))
      throw new GuardDefinitionError(
        `guards[${i}] is not a guard: make it with defineGuard({ name, codes, before?, after? })`,
      );
    checkSpec(guard);
    if (names.has(guard.name))
      throw new GuardDefinitionError(`two guards are named ${JSON.stringify(guard.name)}`);
    names.add(guard.name);
    for (const [code, spec] of Object.entries(guard.codes)) {
      const other = codes.get(code) ?? numbers.get(spec.number);
      if (other !== undefined)
        throw new GuardDefinitionError(
          `guard ${guard.name}: code ${code} (${spec.number}) is also declared by guard ${other}`,
        );
      codes.set(code, guard.name);
      numbers.set(spec.number, guard.name);
    }
    return guard;
  });
}

/** The runtime code objects of a guard's codes, by name. */
export function guardCodes(guard: Guard): ReadonlyMap<string, RuntimeErrorCode> {
  return new Map(
    Object.entries(guard.codes).map(([name, c]) => [name, RuntimeErrorCode.user(name, c.number, c.outcome)]),
  );
}

/** The parts of a guard checked, as untyped input (a guards module may be plain JavaScript). */
interface SpecInput {
  readonly name: unknown;
  readonly codes: unknown;
  readonly before?: unknown;
  readonly after?: unknown;
}

function checkSpec(spec: SpecInput): void {
  if (typeof spec !== 'object' || spec === null)
    throw new GuardDefinitionError('defineGuard needs { name, codes, before?, after? }');
  if (typeof spec.name !== 'string' || !NAME.test(spec.name))
    throw new GuardDefinitionError(
      `defineGuard: invalid guard name ${JSON.stringify(spec.name)} (letters, digits, _ . - only, at most 64)`,
    );
  const name = spec.name;
  const fail = (what: string): never => {
    throw new GuardDefinitionError(`defineGuard: ${name}: ${what}`);
  };
  if (typeof spec.codes !== 'object' || spec.codes === null || Array.isArray(spec.codes))
    fail('`codes` must be an object of { CODE_NAME: { number, outcome } }');
  if (spec.before !== undefined && typeof spec.before !== 'function') fail('`before` must be a function');
  if (spec.after !== undefined && typeof spec.after !== 'function') fail('`after` must be a function');
  if (spec.before === undefined && spec.after === undefined) fail('give `before`, `after` or both');
  const runtime = new Set<string>(RuntimeErrorCode.values().map((c) => c.name));
  const seen = new Set<number>();
  for (const [codeName, code] of Object.entries(spec.codes as Record<string, GuardCodeSpec | null>)) {
    if (!CODE_NAME.test(codeName))
      fail(`code ${JSON.stringify(codeName)}: names are upper case, digits and _`);
    if (runtime.has(codeName))
      fail(`code ${codeName} is one of the runtime's own codes; choose another name`);
    if (typeof code !== 'object' || code === null)
      return fail(`code ${codeName} must be { number, outcome }`);
    if (!isUserCodeNumber(code.number))
      fail(
        `code ${codeName}: number ${JSON.stringify(code.number)} is outside the range reserved for guards (${USER_CODE_RANGE.min}–${USER_CODE_RANGE.max})`,
      );
    if (!OUTCOMES.includes(code.outcome))
      fail(
        `code ${codeName}: outcome must be REJECTED, DEFERRED or FAILED, not ${JSON.stringify(code.outcome)}`,
      );
    if (seen.has(code.number)) fail(`code ${codeName}: number ${code.number} is used twice`);
    seen.add(code.number);
  }
}

/**
 * The codes the guards declare, as `[name, number, guard]` (for the check that no builtin declares one
 * of them). Anything that is not a guard is left to the guards' own check.
 */
export function guardCodesOf(guards: unknown): [string, number, string][] {
  if (!Array.isArray(guards)) return [];
  return guards.flatMap((guard: unknown) =>
    isGuard(guard)
      ? Object.entries(guard.codes).map(([name, spec]): [string, number, string] => [
          name,
          spec.number,
          guard.name,
        ])
      : [],
  );
}
