import { frozenCopy } from '../../domain/frozen.js';
import { AgentRuntimeError } from '../../domain/agent-runtime-error.js';
import { RuntimeErrorCode } from '../../domain/error-codes.js';
import type { FlowNode } from '../../domain/flow.js';
import { isUserCodeNumber, USER_CODE_RANGE } from '../../domain/guard-codes.js';
import { LOCALES, type Locale, type Localized } from '../../domain/locale.js';
import { Observation } from '../../domain/observation.js';
import type { EvidenceRecord } from '../../records/run-state.js';
import type { CallInput } from '../call.js';
import { builtinFrom, type BuiltinDefinition, type BuiltinInput } from './define.js';

// A user's builtin (docs/builtins.md): a tool the runtime answers itself, defined by the application with
// the same definition as the standard builtins, and registered with `createRuntime({ builtins })`.

/** The outcome a user builtin's code gives its observation. */
export type BuiltinCodeOutcome = 'REJECTED' | 'FAILED';

/** One code of a user builtin: its number (in USER_CODE_RANGE) and its outcome. */
export interface BuiltinCodeSpec {
  readonly number: number;
  readonly outcome: BuiltinCodeOutcome;
}

/** A user builtin's codes by name (`NOTE_TOO_LONG`: upper case, digits and `_`). */
export type BuiltinCodes = Readonly<Record<string, BuiltinCodeSpec>>;

/** The names of `Codes` whose outcome is `O`. */
export type BuiltinCodeOf<Codes extends BuiltinCodes, O extends BuiltinCodeOutcome> = {
  [K in keyof Codes]: Codes[K]['outcome'] extends O ? K : never;
}[keyof Codes] &
  string;

/** What a user builtin's `execute` returns: made only by `call.ok`, `call.reject` or `call.fail`. */
export class BuiltinAnswer {
  private constructor() {}

  /** @internal */
  static create(observation: Observation): BuiltinAnswer {
    const answer = new BuiltinAnswer();
    ANSWERS.set(answer, observation);
    return answer;
  }
}

const ANSWERS = new WeakMap<BuiltinAnswer, Observation>();

/** What a user builtin sees of the call (frozen copies), and the answers it may give. */
export interface BuiltinCall<Codes extends BuiltinCodes = BuiltinCodes> {
  /** The builtin's name. */
  readonly tool: string;
  /** The arguments, valid for the builtin's input. */
  readonly args: Readonly<Record<string, unknown>>;
  /** The input the run was started with. */
  readonly input: unknown;
  readonly runId: string;
  /** The node the call is made in, and the outputs it has set so far. */
  readonly node: { readonly id: string; readonly outputs: Readonly<Record<string, unknown>> };
  /** Every call of this run that executed so far, oldest first. */
  readonly evidence: readonly Readonly<EvidenceRecord>[];
  /** The language of the texts the model sees. */
  readonly locale: Locale;
  /** SUCCESS: the model reads `summary`, and `data` (any JSON) as the result. */
  ok(summary: string, data?: unknown): BuiltinAnswer;
  /** REJECTED with one of the builtin's REJECTED codes: the call was refused, the model is told `next`. */
  reject(code: BuiltinCodeOf<Codes, 'REJECTED'>, reason: string, next: string): BuiltinAnswer;
  /** FAILED with one of the builtin's FAILED codes: the builtin could not do it, the model is told `next`. */
  fail(code: BuiltinCodeOf<Codes, 'FAILED'>, reason: string, next: string): BuiltinAnswer;
}

/** The definition of a user builtin, for `defineBuiltin`. */
export interface BuiltinSpec<Codes extends BuiltinCodes> {
  /** The name the model calls it by (letters, digits, `_`, `-`; not starting with `builtin_`). */
  readonly name: string;
  /** What the model is told it does, in both locales. */
  readonly description: Localized<string>;
  /** Its arguments (default: none); each property a string, a list of strings or any JSON value. */
  readonly input?: BuiltinInput;
  /** Every code it may answer with (default: none). */
  readonly codes?: Codes;
  /** Where it is offered; default: in a node that lists it in `tools`. */
  readonly visible?: (node: FlowNode) => boolean;
  /** Answers a call; may be `async`. Whatever it throws is FAILED `TOOL_ERROR`. */
  readonly execute: (call: BuiltinCall<Codes>) => BuiltinAnswer | Promise<BuiltinAnswer>;
}

/** A builtin that cannot be used: thrown by `defineBuiltin` and `createRuntime`. */
export class BuiltinDefinitionError extends AgentRuntimeError {
  declare readonly code: 'BUILTIN_DEFINITION_INVALID';

  constructor(message: string) {
    super('BUILTIN_DEFINITION_INVALID', message);
  }
}

/** Marks user builtins; a registered symbol, so that builtins made by another copy of the package are recognised. */
const USER_BUILTIN: unique symbol = Symbol.for('g2rain-agent-runtime.builtin') as never;

/** A builtin made by `defineBuiltin`, for `createRuntime({ builtins })`. */
export interface UserBuiltin extends BuiltinDefinition {
  readonly codes: BuiltinCodes;
  readonly [USER_BUILTIN]: true;
}

/**
 * The builtins made by this copy of the package. A builtin of another copy carries the brand too, but
 * its answers are that copy's values, which this one cannot read: it is refused with a clear error.
 */
const MADE_HERE = new WeakSet<object>();

const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const CODE_NAME = /^[A-Z][A-Z0-9_]{0,63}$/;
const PROPERTY_TYPES: readonly string[] = ['string', 'array', 'json'];

/**
 * Defines a user builtin (docs/builtins.md). Throws BuiltinDefinitionError for a bad name (or one of the
 * runtime's `builtin_` prefix), a description or property text missing a locale, a required property not
 * declared, a code whose name is the runtime's or not upper case, whose number is outside
 * USER_CODE_RANGE or used twice, or whose outcome is not REJECTED or FAILED.
 */
export function defineBuiltin<const Codes extends BuiltinCodes = Record<never, BuiltinCodeSpec>>(
  spec: BuiltinSpec<Codes>,
): UserBuiltin {
  checkSpec(spec);
  const codes = new Map(
    Object.entries(spec.codes ?? {}).map(([name, c]) => [
      name,
      RuntimeErrorCode.user(name, c.number, c.outcome),
    ]),
  );
  const listed = (node: FlowNode): boolean => node.tools.includes(spec.name);
  const visible = spec.visible ?? listed;
  const definition = builtinFrom(
    { name: spec.name, description: spec.description, visible: (node) => visible(node), ...input(spec) },
    async (args, ctx) => {
      const answer: unknown = await spec.execute(
        callView(spec.name, args, ctx, codes) as unknown as BuiltinCall<Codes>,
      );
      const observation = answer instanceof BuiltinAnswer ? ANSWERS.get(answer) : undefined;
      if (!observation)
        throw new Error(
          `builtin ${spec.name} returned something else than call.ok / call.reject / call.fail`,
        );
      return observation;
    },
  );
  const builtin = Object.freeze({
    ...definition,
    codes: Object.freeze({ ...(spec.codes ?? {}) }),
    [USER_BUILTIN]: true as const,
  });
  MADE_HERE.add(builtin);
  return builtin;
}

function input(spec: { readonly input?: BuiltinInput }): { input?: BuiltinInput } {
  return spec.input ? { input: spec.input } : {};
}

/** True for a builtin made by `defineBuiltin` (of any copy of this package). */
export function isUserBuiltin(value: unknown): value is UserBuiltin {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { [USER_BUILTIN]?: unknown })[USER_BUILTIN] === true
  );
}

/**
 * Checks the builtins a runtime is given: each made by `defineBuiltin` of this copy of the package, no
 * two with one name, none named like a standard builtin or one of `toolNames` (the runtime's local
 * tools), no code name or number used by two of them or by one of `guardCodes` (the user guards' codes).
 * Returns them in order; throws BuiltinDefinitionError.
 */
export function checkBuiltins(
  builtins: unknown,
  toolNames: Iterable<string>,
  guardCodes: Iterable<readonly [name: string, number: number, guard: string]> = [],
): readonly UserBuiltin[] {
  if (!Array.isArray(builtins))
    throw new BuiltinDefinitionError(
      `builtins must be a list of builtins made with defineBuiltin, not ${builtins === null ? 'null' : typeof builtins}: write builtins: [myBuiltin]`,
    );
  const tools = new Set(toolNames);
  const names = new Set<string>();
  const codes = new Map<string, string>();
  const numbers = new Map<number, string>();
  for (const [name, number, guard] of guardCodes) {
    codes.set(name, `guard ${guard}`);
    numbers.set(number, `guard ${guard}`);
  }
  return builtins.map((builtin: unknown, i) => {
    if (!isUserBuiltin(builtin))
      throw new BuiltinDefinitionError(
        `builtins[${i}] is not a builtin: make it with defineBuiltin({ name, description, input?, codes?, execute })`,
      );
    if (!MADE_HERE.has(builtin))
      throw new BuiltinDefinitionError(
        `builtin ${builtin.name} was made by another copy of g2rain-agent-runtime, whose answers this one cannot read: import defineBuiltin from the copy that runs it (for the CLI, the package the agent-runtime command comes from: npx agent-runtime in the project)`,
      );
    if (names.has(builtin.name))
      throw new BuiltinDefinitionError(`two builtins are named ${JSON.stringify(builtin.name)}`);
    if (tools.has(builtin.name))
      throw new BuiltinDefinitionError(
        `builtin ${builtin.name} has the name of a local tool; expected a name no tool has`,
      );
    names.add(builtin.name);
    for (const [name, spec] of Object.entries(builtin.codes)) {
      const other = codes.get(name) ?? numbers.get(spec.number);
      if (other !== undefined)
        throw new BuiltinDefinitionError(
          `builtin ${builtin.name}: code ${name} (${spec.number}) is also declared by ${other}`,
        );
      codes.set(name, `builtin ${builtin.name}`);
      numbers.set(spec.number, `builtin ${builtin.name}`);
    }
    return builtin;
  });
}

/** The call as a user builtin sees it: frozen copies, and the three answers. */
function callView(
  tool: string,
  args: Record<string, unknown>,
  ctx: CallInput,
  codes: ReadonlyMap<string, RuntimeErrorCode>,
): BuiltinCall {
  const answer = (outcome: BuiltinCodeOutcome, name: string, reason: string, next: string): BuiltinAnswer => {
    const c = codes.get(name);
    if (!c || c.outcome !== outcome)
      throw new Error(`builtin ${tool}: ${name} is not one of its ${outcome} codes`);
    if (!reason.trim() || !next.trim())
      throw new Error(`builtin ${tool}: ${name} needs a reason and a next step`);
    return BuiltinAnswer.create(
      outcome === 'REJECTED' ? Observation.rejected(c, reason, next) : Observation.failed(c, reason, next),
    );
  };
  return Object.freeze({
    tool,
    args: frozenCopy(args),
    input: frozenCopy(ctx.input ?? null),
    runId: ctx.run.runId,
    node: frozenCopy({ id: ctx.nodeId, outputs: ctx.node.outputs }),
    evidence: frozenCopy(ctx.run.evidence),
    locale: ctx.locale,
    ok: (summary: string, data?: unknown) => BuiltinAnswer.create(Observation.success(summary, data)),
    reject: (name: string, reason: string, next: string) => answer('REJECTED', name, reason, next),
    fail: (name: string, reason: string, next: string) => answer('FAILED', name, reason, next),
  });
}

/** The parts of a definition checked, as untyped input (a module may be plain JavaScript). */
interface SpecInput {
  readonly name?: unknown;
  readonly description?: unknown;
  readonly input?: unknown;
  readonly codes?: unknown;
  readonly visible?: unknown;
  readonly execute?: unknown;
}

function checkSpec(spec: SpecInput): void {
  if (typeof spec !== 'object' || spec === null)
    throw new BuiltinDefinitionError('defineBuiltin needs { name, description, input?, codes?, execute }');
  const { name } = spec;
  if (typeof name !== 'string' || !NAME.test(name) || name.startsWith('builtin_'))
    throw new BuiltinDefinitionError(
      `defineBuiltin: name ${JSON.stringify(name)} is not usable; expected letters, digits, _ or - (at most 64, a letter first), not starting with builtin_ (the runtime's own builtins)`,
    );
  const where = `defineBuiltin: ${name}`;
  checkLocalized(spec.description, `${where}: description`);
  if (typeof spec.execute !== 'function')
    throw new BuiltinDefinitionError(`${where}: execute must be a function`);
  if (spec.visible !== undefined && typeof spec.visible !== 'function')
    throw new BuiltinDefinitionError(`${where}: visible must be a function of the node`);
  if (spec.input !== undefined) checkInput(spec.input, where);
  checkCodes(spec.codes, where);
}

function checkLocalized(text: unknown, what: string): void {
  const record = typeof text === 'object' && text !== null ? (text as Record<string, unknown>) : {};
  const missing = LOCALES.filter((l) => typeof record[l] !== 'string' || !record[l].trim());
  if (missing.length > 0)
    throw new BuiltinDefinitionError(
      `${what} needs a text in ${LOCALES.join(' and ')}; missing: ${missing.join(', ')}`,
    );
}

function checkInput(input: unknown, where: string): void {
  const { properties, required } = (typeof input === 'object' && input !== null ? input : {}) as {
    properties?: unknown;
    required?: unknown;
  };
  if (typeof properties !== 'object' || properties === null)
    throw new BuiltinDefinitionError(`${where}: input.properties must be an object of properties`);
  for (const [prop, spec] of Object.entries(properties)) {
    const { type, description } = (spec ?? {}) as { type?: unknown; description?: unknown };
    if (typeof type !== 'string' || !PROPERTY_TYPES.includes(type))
      throw new BuiltinDefinitionError(
        `${where}: input property ${prop} has type ${JSON.stringify(type)}; expected ${PROPERTY_TYPES.join(', ')}`,
      );
    if (description !== undefined) checkLocalized(description, `${where}: input property ${prop}`);
  }
  if (required === undefined) return;
  if (!Array.isArray(required))
    throw new BuiltinDefinitionError(`${where}: input.required must be a list of property names`);
  for (const name of required as unknown[])
    if (typeof name !== 'string' || !Object.hasOwn(properties, name))
      throw new BuiltinDefinitionError(
        `${where}: required property ${String(name)} is not in input.properties`,
      );
}

function checkCodes(codes: unknown, where: string): void {
  if (codes === undefined) return;
  if (typeof codes !== 'object' || codes === null)
    throw new BuiltinDefinitionError(`${where}: codes must be an object of codes by name`);
  const numbers = new Set<number>();
  const runtime = new Set(RuntimeErrorCode.values().map((c) => c.name as string));
  for (const [name, spec] of Object.entries(codes)) {
    const { number, outcome } = (spec ?? {}) as { number?: unknown; outcome?: unknown };
    if (!CODE_NAME.test(name) || runtime.has(name))
      throw new BuiltinDefinitionError(
        `${where}: code ${name} is not usable; expected upper case, digits and _, and not one of the runtime's codes`,
      );
    if (!isUserCodeNumber(number) || numbers.has(number))
      throw new BuiltinDefinitionError(
        `${where}: code ${name} has number ${String(number)}; expected a number from ${USER_CODE_RANGE.min} to ${USER_CODE_RANGE.max} used once`,
      );
    numbers.add(number);
    if (outcome !== 'REJECTED' && outcome !== 'FAILED')
      throw new BuiltinDefinitionError(
        `${where}: code ${name} has outcome ${String(outcome)}; expected REJECTED or FAILED`,
      );
  }
}
