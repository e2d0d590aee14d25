import { globSync, readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

/**
 * The fast lane (`npm run test:unit`): suites of these folders that run wholly in this process.
 * Everything else — the CLI and `serve` as subprocesses, crash and race trials, the console in
 * Chromium, the package install, PostgreSQL scale-out — runs in the `process` project; suites of these
 * folders that start a child process or PGlite run in `slow`. `npm test` runs all three.
 */
const unit = [
  'test/domain/**/*.test.ts',
  'test/records/**/*.test.ts',
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
 * What makes a suite of the unit folders slow, found in its text so that the lanes never drift from
 * the suites: a child process (an MCP server over stdio — a flow's `command`, the test helpers' servers,
 * the official reference servers —, `child_process`, a store child), PGlite (its WebAssembly, torn down
 * with a worker thread, once aborted V8 and with it the whole threads pool; in a fork it takes only its
 * file), a PostgreSQL server (test/store/postgres-server.ts), or a long run against the strict model API
 * stand-in over HTTP (`startStrictFake`, as the provider suites do). A slow suite's time depends on how
 * busy the machine is; the fast lane's must not.
 */
const STARTS_A_PROCESS_OR_PGLITE = new RegExp(
  [
    'child_process',
    'StdioClientTransport',
    String.raw`command:\s*['"]?node\b`,
    String.raw`process\.execPath`,
    String.raw`helpers/(?:demo|cancel|oauth)-server`,
    'env-probe',
    String.raw`server-(?:everything|filesystem|memory)`,
    'spawnStoreChild',
    'pglite',
    'postgres-server',
    'startStrictFake',
    String.raw`corpus\.js`,
  ].join('|'),
  'i',
);

const slowInUnitFolders = unit
  .flatMap((pattern) => globSync(pattern))
  .filter((file) => STARTS_A_PROCESS_OR_PGLITE.test(readFileSync(file, 'utf8')));

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: unit,
          exclude: slowInUnitFolders,
          pool: 'threads',
          // A worker imports the runtime once for all its files: importing it again for each file was
          // most of the lane's time. Mocks, env and global stubs are put back before every test.
          isolate: false,
          restoreMocks: true,
          unstubEnvs: true,
          unstubGlobals: true,
        },
      },
      { extends: true, test: { name: 'slow', include: slowInUnitFolders, pool: 'forks' } },
      {
        extends: true,
        test: { name: 'process', include: ['test/**/*.test.ts'], exclude: unit, pool: 'forks' },
      },
    ],
  },
});
