import { defineConfig } from 'vitest/config';

/**
 * The fast lane (`npm run test:unit`): suites that run in-process, with at most a short-lived MCP
 * server child. Everything else — the CLI and `serve` as subprocesses, crash and race trials, the
 * console in Chromium, the package install, PostgreSQL scale-out — runs in the `process` project,
 * the slow suites of the unit folders in `slow`; `npm test` runs all three.
 */
const unit = [
  'test/domain/**/*.test.ts',
  'test/loop/**/*.test.ts',
  'test/graph/**/*.test.ts',
  'test/flow/**/*.test.ts',
  'test/tools/**/*.test.ts',
  'test/model/**/*.test.ts',
  'test/store/**/*.test.ts',
  'test/mcp/**/*.test.ts',
  'test/runtime/**/*.test.ts',
  'test/engine/**/*.test.ts',
  'test/trace/**/*.test.ts',
  'test/log/**/*.test.ts',
  'test/docs/**/*.test.ts',
  'test/testing/**/*.test.ts',
  'test/delegation/**/*.test.ts',
  'test/context/**/*.test.ts',
];
/**
 * Slow suites inside the unit folders (several seconds each: many child processes or 200-round runs),
 * and the suites that run PGlite: its WebAssembly, torn down with a worker thread, once aborted V8
 * (`UnregisterWasmAllocation`) and with it the whole threads pool; in a fork it can take only its file.
 */
const slowInUnitFolders = [
  'test/store/postgres-pglite.test.ts',
  'test/runtime/seams.test.ts',
  'test/mcp/connection.test.ts',
  'test/mcp/conformance.test.ts',
  'test/mcp/protocol.test.ts',
  'test/context/long-run-provider.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: unit, exclude: slowInUnitFolders, pool: 'threads' },
      },
      { extends: true, test: { name: 'slow', include: slowInUnitFolders, pool: 'forks' } },
      {
        extends: true,
        test: { name: 'process', include: ['test/**/*.test.ts'], exclude: unit, pool: 'forks' },
      },
    ],
  },
});
