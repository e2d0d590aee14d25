/**
 * Keeps Node's "SQLite is an experimental feature" warning (printed by Node 22 when node:sqlite loads)
 * out of the CLI's output: the CLI uses SQLite by default, and the warning says nothing a user can act
 * on. Every other warning is printed as before, by Node's own handlers.
 */
export function quietSqliteWarning(): void {
  const handlers = process.listeners('warning');
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.name === 'ExperimentalWarning' && /sqlite/i.test(warning.message)) return;
    for (const handler of handlers) handler(warning);
  });
}
