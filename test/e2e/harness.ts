import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createRuntime, type CreateRuntimeOptions } from '../../src/runtime/create.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { createServer, type ApiServer, type ServerOptions } from '../../src/server/app.js';
import { mountConsole } from '../../src/server/console.js';
import { FlowRegistry } from '../../src/server/flows.js';
import { parseTokens } from '../../src/server/tokens.js';
import type { LocalTool } from '../../src/tools/tool.js';
import { demoDataDir, REPO_ROOT } from '../helpers/demo-server.js';
import { SITE_TURNS, siteFlow } from './fixtures.js';

/** Tokens of the console tests. */
export const TOKENS = {
  operator: 'console-operator-token-0123',
  viewer: 'console-viewer-token-012345',
} as const;

const WEB = join(REPO_ROOT, 'web');
const WEB_DIST = join(WEB, 'dist');

/** The flags of the machine notes for Debian's Chromium run headless as root (the profile folder is given separately). */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Where Debian's chromium package installs the browser. */
export const CHROMIUM = '/usr/bin/chromium';

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/**
 * Builds web/dist when it is missing or older than a source file of web/ (CI builds it through
 * `npm ci` → prepare → build; a developer who edited the console gets a fresh build here).
 */
export function ensureConsoleBuilt(): void {
  const index = join(WEB_DIST, 'index.html');
  if (existsSync(index) && statSync(index).mtimeMs >= newest(WEB)) return;
  const vite = join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js');
  const result = spawnSync(
    process.execPath,
    [vite, 'build', '--config', join(WEB, 'vite.config.ts'), '--logLevel', 'warn'],
    {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    },
  );
  if (result.status !== 0)
    throw new Error(`vite build failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
}

/** What a console test serves: flow files, local tools, tokens and more options. */
export interface ConsoleSetup {
  /** The folder of flow files (`serve --flows DIR`); every file in it must load. */
  readonly dir?: string;
  readonly tools?: LocalTool[];
  /** The tokens (default: the operator `olivia`). */
  readonly tokens?: readonly { token: string; role: 'viewer' | 'operator' | 'admin'; name: string }[];
  /** More runtime options (env, mcpAuthorization, …). */
  readonly runtime?: Omit<CreateRuntimeOptions, 'store' | 'tools' | 'logger'>;
  /** More server options (credentials, …). */
  readonly server?: Partial<Omit<ServerOptions, 'runtime' | 'flows' | 'tokens' | 'logger'>>;
}

/** An API server with the console mounted, on a loopback port, over an in-memory runtime. */
export interface ServedConsole {
  readonly url: string;
  readonly server: ApiServer;
  readonly runtime: Runtime;
  close(): Promise<void>;
}

/** Serves the API and the console on 127.0.0.1 for `setup`; throws when a flow file does not load. */
export async function serveConsole(setup: ConsoleSetup = {}): Promise<ServedConsole> {
  const tools = setup.tools ?? [];
  const runtime = createRuntime({ ...setup.runtime, store: 'memory', logger: false, tools });
  const knownTools = tools.map((tool) => tool.descriptor.name);
  const problems: string[] = [];
  const logger = {
    ...silent,
    warn: (message: string, fields?: unknown) => void problems.push(`${message} ${JSON.stringify(fields)}`),
  };
  const flows = new FlowRegistry({ ...(setup.dir ? { dir: setup.dir } : {}), knownTools, logger });
  await flows.loadDir();
  if (problems.length > 0) throw new Error(problems.join('\n'));
  const entries = setup.tokens ?? [{ token: TOKENS.operator, role: 'operator', name: 'olivia' }];
  const tokens = parseTokens(entries, 'console e2e');
  const server = createServer({ ...setup.server, runtime, flows, tokens, logger: silent });
  mountConsole(server.app);
  const { url } = await server.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    server,
    runtime,
    async close() {
      await server.close();
      await runtime.close();
    },
  };
}

/** The console of the site scenario, with a run that waits for approval on request. */
export interface ConsoleServer extends ServedConsole {
  /** Starts a run of the scenario's flow as the operator and waits until it waits for approval. */
  startSuspendedRun(input: string): Promise<string>;
  stop(): Promise<void>;
}

/** Starts the API with the console, an operator and a viewer token, and the site-console flow. */
export async function startConsoleServer(): Promise<ConsoleServer> {
  const flowsDir = mkdtempSync(join(tmpdir(), 'console-e2e-'));
  await mkdir(join(flowsDir, 'site'), { recursive: true });
  await writeFile(join(flowsDir, 'site', 'flow.yaml'), siteFlow(demoDataDir()));
  await writeFile(join(flowsDir, 'site', 'turns.yaml'), SITE_TURNS);
  const served = await serveConsole({
    dir: flowsDir,
    tokens: [
      { token: TOKENS.operator, role: 'operator', name: 'olivia' },
      { token: TOKENS.viewer, role: 'viewer', name: 'victor' },
    ],
  });
  return {
    ...served,
    startSuspendedRun: (input) => startSuspendedRun(served.url, input),
    async stop() {
      await served.close();
      rmSync(flowsDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    },
  };
}

function startSuspendedRun(url: string, input: string): Promise<string> {
  return startRunUntil(url, 'site-console', input, 'run.suspended');
}

/**
 * Starts a run of `flowId` as the operator and follows its own event stream (no polling, no sleeps)
 * until an event of `eventType` is in it; throws when the run ends before. Returns the run's id.
 */
export async function startRunUntil(
  url: string,
  flowId: string,
  input: string,
  eventType: string,
): Promise<string> {
  const headers = { authorization: `Bearer ${TOKENS.operator}`, 'content-type': 'application/json' };
  const started = await fetch(`${url}/v1/runs`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ flowId, input }),
  });
  if (started.status !== 201) throw new Error(`POST /v1/runs: ${started.status} ${await started.text()}`);
  const { runId } = (await started.json()) as { runId: string };
  const events = await fetch(`${url}/v1/runs/${runId}/events`, { headers });
  const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while (!text.includes(`"type":"${eventType}"`)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`run ${runId} ended without ${eventType}:\n${text}`);
    text += value;
  }
  await reader.cancel();
  return runId;
}

/**
 * Signs in on the console's start page with `token` and waits until the console has kept it: the
 * token is saved only once `GET /v1/me` answered, so a `goto` right after the click could leave the
 * page signed out on a busy machine.
 */
export async function signIn(page: Page, base: string, token: string): Promise<void> {
  await page.goto(base);
  await page.getByLabel(/API 令牌|API token/).fill(token);
  await page.getByRole('button', { name: /^(登录|Sign in)$/ }).click();
  await page.waitForFunction((key) => sessionStorage.getItem(key) !== null, 'g2rain.token', {
    timeout: 15_000,
  });
}

const silent = { debug(): void {}, info(): void {}, warn(): void {}, error(): void {} };

/** Debian's Chromium with a fresh, empty profile folder (removed by `close`). */
export async function launchChromium(locale: string): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  const profile = mkdtempSync(join(tmpdir(), 'console-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    locale,
    viewport: { width: 1280, height: 900 },
  });
  // Chromium may still be writing to its profile as the context closes: retry, and never let a
  // leftover temp folder fail a test run from inside an event handler.
  context.on('close', () => {
    try {
      rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    } catch (error) {
      process.stderr.write(`e2e: could not remove ${profile}: ${(error as Error).message}\n`);
    }
  });
  return context;
}
