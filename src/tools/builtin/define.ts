import type { FlowNode } from '../../domain/flow.js';
import type { Locale, Localized } from '../../domain/locale.js';
import type { Observation } from '../../domain/observation.js';
import type { CallInput } from '../call.js';
import type { ProducedCase } from '../produces.js';
import type { JsonSchema, ToolDescriptor } from '../tool.js';
import type { BuiltinTool, NodeTools, WithEffect } from './builtin-tool.js';

// One definition per builtin: its name, when a node sees it, its model-facing texts in both locales, its
// input, the observations it produces and what it does. The builtin list, the descriptors the model gets,
// the registry and the producer rows of docs/observations.md are all read from these definitions.

/** One property of a builtin's input: a string, a list of strings, or any JSON value. */
export interface BuiltinProperty {
  readonly type: 'string' | 'array' | 'json';
  /** What the model is told about it, in both locales; absent where the property's name says it all. */
  readonly description?: Localized<string>;
}

/** A builtin's input: its properties (in the order the model sees them) and the required ones. */
export interface BuiltinInput {
  readonly properties: Readonly<Record<string, BuiltinProperty>>;
  readonly required?: readonly string[];
}

/** The parts of a builtin's definition that do not depend on what its `execute` is given. */
export interface BuiltinShape {
  /** The name the model calls it by. */
  readonly name: string;
  /** What the model is told the tool does, in both locales. */
  readonly description: Localized<string>;
  /** Its arguments (default: none). */
  readonly input?: BuiltinInput;
  /** True when the tool is visible in `node`, whose callable tools `tools` describes. */
  readonly visible: (node: FlowNode, tools: NodeTools) => boolean;
  /** The observations it produces (rows of docs/observations.md). */
  readonly produces?: readonly ProducedCase[];
  /**
   * True for a builtin with an effect outside the run (a delegation starts a child run): the step so far
   * is committed before it runs, like a write's in-flight mark (docs/durability.md).
   */
  readonly writeAhead?: boolean;
}

/** A builtin of the runtime: its definition, what it runs, and its descriptor in a locale. */
export interface BuiltinDefinition extends BuiltinTool {
  readonly description: Localized<string>;
  readonly input: BuiltinInput;
  readonly produces: readonly ProducedCase[];
  /** The descriptor the model gets in `locale` (built once per locale, frozen). */
  descriptor(locale: Locale): ToolDescriptor;
}

/** A standard builtin's definition: its `execute` runs with the whole call (src/tools/call.ts). */
export interface StandardBuiltinSpec extends BuiltinShape {
  execute(args: Record<string, unknown>, ctx: CallInput): Promise<Observation | WithEffect>;
}

/**
 * Defines one builtin of this package from its whole definition. The descriptor is made once per locale
 * and frozen: schema validation caches compiled schemas by object identity, and the model's requests must
 * stay byte for byte what they were.
 */
export function standardBuiltin(spec: StandardBuiltinSpec): BuiltinDefinition {
  return builtinFrom(spec, (args, ctx) => spec.execute(args, ctx));
}

/** The definition of a builtin whose shape is `shape` and which runs `execute`. */
export function builtinFrom(
  shape: BuiltinShape,
  execute: (args: Record<string, unknown>, ctx: CallInput) => Promise<Observation | WithEffect>,
): BuiltinDefinition {
  const input: BuiltinInput = shape.input ?? { properties: {}, required: [] };
  const descriptors = new Map<Locale, ToolDescriptor>();
  return Object.freeze({
    name: shape.name,
    description: shape.description,
    input,
    produces: shape.produces ?? [],
    visible: shape.visible,
    ...(shape.writeAhead ? { writeAhead: true } : {}),
    execute,
    descriptor(locale: Locale): ToolDescriptor {
      let descriptor = descriptors.get(locale);
      if (!descriptor) {
        descriptor = Object.freeze(makeDescriptor(shape.name, shape.description, input, locale));
        descriptors.set(locale, descriptor);
      }
      return descriptor;
    },
  });
}

function makeDescriptor(
  name: string,
  description: Localized<string>,
  input: BuiltinInput,
  locale: Locale,
): ToolDescriptor {
  const properties: Record<string, JsonSchema> = {};
  for (const [prop, spec] of Object.entries(input.properties))
    properties[prop] = propertySchema(spec, locale);
  return {
    name,
    description: description[locale],
    inputSchema: {
      type: 'object',
      properties,
      required: [...(input.required ?? [])],
      additionalProperties: false,
    },
    kind: 'builtin',
    readOnlyHint: true,
  };
}

function propertySchema(spec: BuiltinProperty, locale: Locale): JsonSchema {
  const described = spec.description ? { description: spec.description[locale] } : {};
  if (spec.type === 'json') return described;
  if (spec.type === 'array') return { type: 'array', items: { type: 'string' }, ...described };
  return { type: 'string', ...described };
}
