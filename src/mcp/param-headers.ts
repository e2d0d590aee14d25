/**
 * The 2026-07-28 revision's `x-mcp-header` annotation (Streamable HTTP): a tool's input schema may mark
 * a property so that clients mirror its value into an `Mcp-Param-{Name}` request header. A Streamable
 * HTTP client must leave out of its tool list any tool whose annotations break the revision's rules;
 * this module says which rule a schema breaks. (The SDK's client mirrors the values itself.)
 */

/** The annotation's key in a property's schema. */
const X_MCP_HEADER = 'x-mcp-header';

/** An HTTP token (RFC 9110, section 5.6.2): no space, control character, non-ASCII or delimiter. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The property types a header may carry (`number` is excluded by the revision). */
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);

/**
 * Keywords whose subschemas are not reached by a chain of `properties`: an annotation under them is
 * invalid (a header must be found without evaluating the schema).
 */
const UNREACHABLE = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
] as const;

/** Keywords whose value maps names to subschemas. */
const NAMED = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Why a tool's input schema has an invalid `x-mcp-header` annotation, or null when every annotation
 * (possibly none) is valid: each must be on a property reached from the root by `properties` alone,
 * a non-empty HTTP token, on a string, integer or boolean property, and unique ignoring case.
 */
export function invalidHeaderAnnotation(inputSchema: unknown): string | null {
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: readonly string[], reachable: boolean): string | null => {
    if (!isObject(node)) return null;
    const where = path.length === 0 ? 'the schema root' : `property ${path.join('.')}`;
    if (X_MCP_HEADER in node) {
      if (!reachable || path.length === 0)
        return `${where}: ${X_MCP_HEADER} is allowed only on a property reached through "properties"`;
      const name = node[X_MCP_HEADER];
      if (typeof name !== 'string' || name === '')
        return `${where}: ${X_MCP_HEADER} must be a non-empty string`;
      if (!TOKEN.test(name))
        return `${where}: ${X_MCP_HEADER} ${JSON.stringify(name)} is not an HTTP header name (no spaces, colons, control or non-ASCII characters)`;
      const type = typeof node.type === 'string' ? node.type : undefined;
      if (type === undefined || !HEADER_TYPES.has(type))
        return `${where}: ${X_MCP_HEADER} is allowed only on a string, integer or boolean property, not ${type ?? 'an untyped one'}`;
      const prior = seen.get(name.toLowerCase());
      if (prior !== undefined)
        return `${where}: ${X_MCP_HEADER} ${JSON.stringify(name)} repeats ${JSON.stringify(prior)} (names are compared ignoring case)`;
      seen.set(name.toLowerCase(), name);
    }
    if (isObject(node.properties))
      for (const [key, child] of Object.entries(node.properties)) {
        const fault = visit(child, [...path, key], reachable);
        if (fault !== null) return fault;
      }
    for (const keyword of UNREACHABLE) {
      const sub = node[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? (sub as unknown[])
        : NAMED.has(keyword) && isObject(sub)
          ? Object.values(sub)
          : [sub];
      for (const branch of branches) {
        const fault = visit(branch, [...path, `(${keyword})`], false);
        if (fault !== null) return fault;
      }
    }
    return null;
  };
  return visit(inputSchema, [], true);
}
