/** With nothing configured, no OpenTelemetry module is loaded, nothing is exported and nothing is persisted. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE, REPO_ROOT, ensureBuilt } from '../acceptance/build.js';
import { OtlpReceiver } from './otlp-receiver.js';

/**
 * A program embedding the built runtime: it records every module Node resolves, runs a one-node flow
 * to its end, and prints the OpenTelemetry modules it saw and the run's persisted trace context.
 */
const PROGRAM = (indexUrl: string) => `
import { registerHooks } from 'node:module';
const otel = [];
registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    if (result.url.includes('@opentelemetry') || result.url.includes('/telemetry/otel.js') || result.url.includes('/telemetry/sdk.js')) otel.push(result.url);
    return result;
  },
});
const { createRuntime, defineTool, loadFlow, scriptedModel } = await import(${JSON.stringify(indexUrl)});
const lookup = defineTool({ name: 'lookup', description: 'Find', inputSchema: { type: 'object', properties: { id: { type: 'number' } } }, execute: ({ id }) => ({ id }) });
const runtime = createRuntime({ store: 'memory', tools: [lookup], logger: false });
const flow = await loadFlow({ id: 'off', locale: 'en', nodes: [{ id: 'main', instructions: 'Look it up.', tools: ['lookup'] }] }, { knownTools: ['lookup'] });
const model = scriptedModel({ turns: [{ calls: [{ tool: 'lookup', args: { id: 1 } }] }, { calls: [{ tool: 'builtin_node_finish', args: { summary: 'done' } }] }] });
const run = await runtime.start(flow, { model, input: { text: 'find 1' } });
const record = await (await runtime.db()).getRun(run.runId);
await runtime.close();
console.log(JSON.stringify({ status: run.status, otel, traceparent: record.state.traceparent ?? null }));
`;

let receiver: OtlpReceiver;
let dir: string;
beforeAll(async () => {
  ensureBuilt();
  receiver = await OtlpReceiver.start();
  dir = mkdtempSync(join(tmpdir(), 'otel-off-'));
}, 300_000);
afterAll(async () => {
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the program (asynchronously: the receiver answers in this process meanwhile). */
async function embed(
  env: Record<string, string>,
): Promise<{ status: string; otel: string[]; traceparent: string | null }> {
  const file = join(dir, 'program.mjs');
  writeFileSync(file, PROGRAM(pathToFileURL(join(REPO_ROOT, 'dist/src/index.js')).href));
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('OTEL_')));
  const child = spawn(NODE, [file], { env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as {
    status: string;
    otel: string[];
    traceparent: string | null;
  };
}

describe('telemetry off', { timeout: 120_000 }, () => {
  it('loads no OpenTelemetry module, persists no trace context and exports nothing when nothing is configured', async () => {
    const out = await embed({});
    expect(out.status).toBe('completed');
    expect(out.otel).toEqual([]);
    expect(out.traceparent).toBeNull();
    expect(receiver.requests).toEqual([]);
  });

  it('the same program with an OTLP endpoint loads the SDK, persists the trace context and exports the run', async () => {
    const out = await embed({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    expect(out.status).toBe('completed');
    expect(out.otel.some((url) => url.includes('@opentelemetry/sdk-trace-base'))).toBe(true);
    expect(out.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const traceId = out.traceparent?.split('-')[1];
    expect(receiver.spans().map((s) => [s.name, s.traceId])).toEqual(
      expect.arrayContaining([
        ['invoke_agent off', traceId],
        ['execute_tool lookup', traceId],
      ]),
    );
  });

  it('OTEL_SDK_DISABLED=true turns it off again', async () => {
    receiver.requests.length = 0;
    const out = await embed({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SDK_DISABLED: 'true' });
    expect(out.otel).toEqual([]);
    expect(receiver.requests).toEqual([]);
  });
});
