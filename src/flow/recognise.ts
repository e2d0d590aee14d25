/**
 * Whether a parsed document is shaped like a flow: a mapping with `nodes` and `id` (or `mcpServers`).
 * Whether it is a valid one is loadFlow's business; a file that is not even shaped like one (a `.env`,
 * `package.json`, `/etc/passwd`) is named as such, and its content is never quoted in a problem.
 */
export function isFlowDocument(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return 'nodes' in value && ('id' in value || 'mcpServers' in value);
}
