import type { Locale } from '../../domain/locale.js';
import type { ToolDescriptor } from '../tool.js';
import { STANDARD_BUILTINS } from './standard.js';

/** The names of the standard builtin tools (docs/observations.md), read from their definitions. */
export const BUILTIN_NAMES: readonly string[] = Object.freeze(STANDARD_BUILTINS.map((b) => b.name));

/** A standard builtin tool's name. */
export type BuiltinName = string;

/** True for the name of a standard builtin tool. */
export function isBuiltinName(name: string): boolean {
  return BUILTIN_NAMES.includes(name);
}

/**
 * The descriptor of a standard builtin in a locale: name, description and JSON input schema, made from
 * its definition once per locale and frozen (schema validation caches compiled schemas by identity).
 */
export function builtinDescriptor(name: string, locale: Locale): ToolDescriptor {
  const builtin = STANDARD_BUILTINS.find((b) => b.name === name);
  if (!builtin) throw new Error(`no standard builtin named ${name}`);
  return builtin.descriptor(locale);
}
