import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, NODE } from '../acceptance/build.js';
import { REPO_ROOT, cliEnv, ensureBuilt, runCli } from './helpers/cli.js';

/**
 * The README's "As a service" example works right after `npm run demo`: in a copy of the repository's
 * demo (examples/site-builder, examples/demo-cloud, scripts/demo.mjs, dist), the demo is run and
 * approved, then the example's commands are played as written — its shell lines read from the README
 * (the reset of the demo cloud, the tokens file, `serve`), its requests sent with the bodies and headers
 * the README's curl lines give — and the run it starts suspends for approval, is approved and completes.
 * The only change: `serve` gets `--port 0` (a free port) instead of the README's 8080.
 */

/** The shell block of the README's "As a service" section, as lines. */
function serviceBlock(): string[] {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## As a service'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
}

/** A `-d '…'` or `-H '…'` argument of a curl line. */
function curlArg(line: string, flag: '-d' | '-H'): string[] {
  return [...line.matchAll(new RegExp(`${flag} '([^']*)'`, 'g'))].map((m) => m[1] as string);
}

/** Reads an SSE stream until an event of type `until`; returns the events' data and ids. */
async function eventsUntil(
  url: string,
  headers: Record<string, string>,
  until: string,
): Promise<{ type: string; id: string | null }[]> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 60_000);
  const response = await fetch(url, { headers, signal: abort.signal });
  expect(response.status).toBe(200);
  const seen: { type: string; id: string | null }[] = [];
  let buffer = '';
  const decoder = new TextDecoder();
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const message = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = /^data: (.*)$/m.exec(message)?.[1];
        if (data === undefined) continue;
        const type = (JSON.parse(data) as { type: string }).type;
        seen.push({ type, id: /^id: (.*)$/m.exec(message)?.[1] ?? null });
        if (type === until) return seen;
      }
    }
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  throw new Error(`the stream ended before ${until}: ${JSON.stringify(seen)}`);
}

describe('README: "As a service" after `npm run demo`', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  const root = mkdtempSync(join(tmpdir(), 'readme-service-'));
  let serve: ChildProcess | null = null;
  afterAll(() => {
    serve?.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  });

  it('the example creates the site, suspends, is approved and completes', async () => {
    for (const part of ['examples/site-builder', 'examples/demo-cloud', 'scripts/demo.mjs'])
      cpSync(join(REPO_ROOT, part), join(root, part), { recursive: true });
    rmSync(join(root, 'examples/site-builder/.data'), { recursive: true, force: true });
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(root, 'node_modules'));
    symlinkSync(join(REPO_ROOT, 'dist'), join(root, 'dist'));
    symlinkSync(join(REPO_ROOT, 'package.json'), join(root, 'package.json'));

    // `npm run demo` (not a terminal: it stops at the approval and prints the command), then the approval.
    const demo = await new Promise<{ code: number | null; err: string }>((resolve) => {
      const child = spawn(NODE, [join(root, 'scripts/demo.mjs')], { cwd: root, env: cliEnv() });
      let err = '';
      child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
      child.on('close', (code) => resolve({ code, err }));
    });
    expect(demo.code, demo.err).toBe(0);
    const demoRun = /run (run_\w+): suspended/.exec(demo.err)?.[1] as string;
    const approved = await runCli(['approve', demoRun], { cwd: root });
    expect(approved.code, approved.stderr).toBe(0);

    // The README's example, line by line.
    const lines = serviceBlock();
    const reset = lines.find((l) => l.startsWith('rm -rf ')) as string;
    expect(reset).toMatch(/^rm -rf examples\/site-builder\/\.data\b/);
    rmSync(join(root, 'examples/site-builder/.data'), { recursive: true, force: true });
    const tokens = /^echo '([^']*)' > tokens\.yaml/.exec(lines.find((l) => l.startsWith('echo ')) ?? '');
    expect(tokens).not.toBeNull();
    writeFileSync(join(root, 'tokens.yaml'), `${tokens?.[1] ?? ''}\n`);
    const serveLine = lines.find((l) => l.startsWith('npx agent-runtime serve')) as string;
    const serveArgs = serveLine.replace(/&.*$/, '').trim().split(/\s+/).slice(2);
    serve = spawn(NODE, [CLI, ...serveArgs, '--port', '0'], { cwd: root, env: cliEnv() });
    const api = await new Promise<string>((resolve, reject) => {
      let out = '';
      serve?.stdout?.setEncoding('utf8').on('data', (c: string) => {
        out += c;
        const url = /^(http:\/\/127\.0\.0\.1:\d+)/m.exec(out)?.[1];
        if (url) resolve(`${url}/v1`);
      });
      serve?.on('close', (code) => reject(new Error(`serve exited ${String(code)}`)));
    });
    const token = /export T=(\S+)/.exec(lines.join('\n'))?.[1] as string;
    const auth = { Authorization: `Bearer ${token}` };
    const postLine = lines.findIndex((l) => l.includes('-X POST $API/runs '));
    const body = curlArg(`${lines[postLine] ?? ''} ${lines[postLine + 1] ?? ''}`, '-d')[0] as string;
    const created = await fetch(`${api}/runs`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body,
    });
    const summary = (await created.json()) as { runId: string };
    expect(created.status, JSON.stringify(summary)).toBe(201);
    const run = summary.runId;
    const first = await eventsUntil(`${api}/runs/${run}/events`, auth, 'run.suspended');
    const lastId = first.at(-1)?.id as string;

    const approveAt = lines.findIndex((l) => l.includes('$API/runs/$RUN/approval'));
    const approveText = `${lines[approveAt] ?? ''} ${lines[approveAt + 1] ?? ''}`;
    const headers = Object.fromEntries(
      curlArg(approveText, '-H').map((h) => h.split(/:\s*/, 2) as [string, string]),
    );
    const decision = await fetch(`${api}/runs/${run}/approval`, {
      method: 'POST',
      headers: { ...auth, ...headers },
      body: curlArg(approveText, '-d')[0] as string,
    });
    expect(decision.status, await decision.clone().text()).toBeLessThan(300);
    const rest = await eventsUntil(
      `${api}/runs/${run}/events`,
      { ...auth, 'Last-Event-ID': lastId },
      'run.completed',
    );
    expect(rest.map((e) => e.type)).toContain('tool.invoked');
    const final = (await (await fetch(`${api}/runs/${run}`, { headers: auth })).json()) as {
      status: string;
      outputs: Record<string, Record<string, unknown>>;
    };
    expect(final.status).toBe('completed');
    expect(final.outputs.create).toMatchObject({ siteId: 'site_1' });
  }, 180_000);
});
