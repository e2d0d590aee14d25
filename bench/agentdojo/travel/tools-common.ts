import type { TravelEnvironment } from './environment.js';

/** A parameter: its JSON type, its docstring line, and whether it may be left out. */
export interface Param {
  type: 'string' | 'string[]' | 'object[]';
  description: string;
  optional?: boolean;
}

/** One tool of the suite: its name, docstring, parameters and effect. */
export interface TravelTool {
  name: string;
  description: string;
  params: Record<string, Param>;
  write: boolean;
  run(env: TravelEnvironment, args: Record<string, unknown>): unknown;
}

export const s = (description: string, optional = false): Param => ({
  type: 'string',
  description,
  optional,
});
export const list = (description: string, optional = false): Param => ({
  type: 'string[]',
  description,
  optional,
});
export const str = (args: Record<string, unknown>, name: string): string => {
  const v = args[name];
  if (typeof v !== 'string') throw new Error(`missing argument ${name}`);
  return v;
};
export const names = (args: Record<string, unknown>, name: string): string[] => {
  const v = args[name];
  if (!Array.isArray(v)) throw new Error(`${name}: expected a list of strings`);
  return v.map(String);
};
/** Python's str() of a float (`4.0`, not `4`). */
export const pyFloat = (n: number): string => (Number.isInteger(n) ? `${n}.0` : String(n));
