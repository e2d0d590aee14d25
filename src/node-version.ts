/** The oldest Node.js release line the package runs on: node:sqlite without a flag. */
export const REQUIRED_NODE = '22.13';

/**
 * Whether `version` (`process.versions.node` form, `22.13.0`) can run the package: 22.13+ on the 22
 * line, 23.4+ on the 23 line (where node:sqlite lost its flag), any 24 or newer.
 */
export function nodeSupported(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map((part) => Number.parseInt(part, 10) || 0);
  if (major >= 24) return true;
  if (major === 23) return minor >= 4;
  return major === 22 && minor >= 13;
}

/** The one line shown on an unsupported Node (null when `version` is supported). */
export function nodeVersionProblem(version: string): string | null {
  if (nodeSupported(version)) return null;
  return `g2rain-agent-runtime requires Node.js ${REQUIRED_NODE} or newer (found ${version}); please upgrade Node.js.`;
}
