import type { FlowNode } from '../domain/flow.js';
import type { Locale } from '../domain/locale.js';
import type { OutputValue } from '../records/run-state.js';
import { outputSchemaMismatch } from '../tools/builtin/output-schema.js';
import type { PipelineLogger } from '../tools/call.js';

/**
 * Checks what a code node's function returned against the node's declared outputs (docs/flows.md,
 * "Code nodes"): an object (or nothing) whose keys are declared outputs, every required output
 * present, every value JSON data that satisfies its output's `schema`. Returns the node's output
 * values, or why they are refused (one line, the node fails CODE_NODE_OUTPUTS).
 */
export function checkCodeOutputs(
  node: FlowNode,
  returned: unknown,
  locale: Locale,
  logger: PipelineLogger,
): Record<string, OutputValue> | string {
  const declared = Object.keys(node.outputs);
  const expected = declared.length > 0 ? `its outputs: ${declared.join(', ')}` : 'it declares no outputs';
  const object = returned ?? {};
  if (typeof object !== 'object' || Array.isArray(object))
    return `code node ${node.id} returned ${Array.isArray(object) ? 'an array' : typeof object}; expected an object of its outputs (${expected})`;
  const values: Record<string, OutputValue> = {};
  for (const [key, value] of Object.entries(object)) {
    const contract = node.outputs[key];
    if (!contract) return `code node ${node.id} returned an undeclared output ${key}; ${expected}`;
    if (value === undefined) continue;
    const json = asJson(value);
    if (json === undefined)
      return `code node ${node.id}'s output ${key} is not JSON data (a function, a cycle, a BigInt…)`;
    const mismatch = outputSchemaMismatch(key, contract, json, locale, logger);
    if (mismatch)
      return `code node ${node.id}'s output ${key} does not match its schema: ${String(mismatch.reason.rules)}`;
    values[key] = { value: json, sourceType: 'code', sourceRef: null };
  }
  const missing = declared.filter((key) => node.outputs[key]?.required && !Object.hasOwn(values, key));
  if (missing.length > 0)
    return `code node ${node.id} did not return its required outputs: ${missing.join(', ')}`;
  return values;
}

/** `value` as JSON data (a copy), or undefined when it has no JSON form. */
function asJson(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}
