import { McpError } from './errors.js';

/** Names the environment may be referenced by: `${NAME}`. */
const REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The variables `${NAME}` references in the values of `values`, each once, in order of appearance. */
export function envRefNames(values: Readonly<Record<string, string>> | undefined): string[] {
  const names = new Set<string>();
  for (const value of Object.values(values ?? {}))
    for (const match of value.matchAll(REF)) names.add(match[1] as string);
  return [...names];
}

/**
 * Replaces each `${NAME}` in the values of `values` by the variable of `env`, so a flow can name a
 * secret without holding it. Called only when a server is started: the flow keeps the references
 * (as written), and the resolved values live only in the child's environment or the request headers.
 * Throws McpError MISSING_ENV naming the variable (never a value) when one is unset.
 */
export function expandEnvRefs(
  values: Readonly<Record<string, string>> | undefined,
  where: string,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values ?? {})) {
    out[key] = value.replace(REF, (_match, name: string) => {
      const found = env[name];
      if (found === undefined) {
        const message = `environment variable ${name} is not set (referenced by ${where}.${key})`;
        throw new McpError('MISSING_ENV', message, { variable: name });
      }
      return found;
    });
  }
  return out;
}
