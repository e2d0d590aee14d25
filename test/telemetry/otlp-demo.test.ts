/**
 * The demo (a gated write: suspend → approve in a new process → complete) exported over OTLP/HTTP to
 * an in-test receiver: one trace across both processes, GenAI spans with our attributes.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, NODE, ensureBuilt } from '../acceptance/build.js';
import { flowFile, turnsFile } from '../acceptance/cli.js';
import { SITE_INPUT } from '../acceptance/scenario.js';
import { OtlpReceiver, jsonResourceAttributes, type ReceivedSpan } from './otlp-receiver.js';

interface Cli {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI with only the OTEL_* variables given (none inherited). */
function cli(dir: string, args: string[], otel: Record<string, string>): Promise<Cli> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: [dirname(NODE), process.env.PATH ?? ''].join(delimiter),
    NO_COLOR: '1',
    USER: 'otel',
  };
  for (const key of Object.keys(env)) if (key.startsWith('OTEL_')) delete env[key];
  delete env.AGENT_RUNTIME_DB;
  Object.assign(env, { DEMO_CLOUD_DATA: join(dir, 'demo-cloud') }, otel);
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [CLI, ...args, '--db', `sqlite:${join(dir, 'runtime.db')}`, '--json'], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** Runs the demo to its suspension, then approves it in a second process. */
async function demo(otel: Record<string, string>): Promise<{ runId: string; first: Cli; second: Cli }> {
  const dir = mkdtempSync(join(tmpdir(), 'otel-demo-'));
  mkdirSync(join(dir, 'demo-cloud'));
  try {
    const first = await cli(
      dir,
      [
        'run',
        flowFile('site'),
        '--input',
        SITE_INPUT,
        '--model',
        `scripted:${turnsFile('write-then-approve')}`,
      ],
      otel,
    );
    expect(first.code, first.stderr).toBe(3);
    const { runId } = JSON.parse(first.stdout) as { runId: string };
    const second = await cli(dir, ['approve', runId, '--comment', 'ok'], otel);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ status: 'completed' });
    return { runId, first, second };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const named = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);

let receiver: OtlpReceiver;
beforeAll(async () => {
  ensureBuilt();
  receiver = await OtlpReceiver.start();
}, 300_000);
afterAll(() => receiver.close());

describe('OpenTelemetry export of the demo', { timeout: 120_000 }, () => {
  it('http/json: one trace across the two processes, with run, node, chat and execute_tool spans and our attributes', async () => {
    receiver.requests.length = 0;
    const { runId } = await demo({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'otel-demo-test',
    });
    // Both processes flushed before exiting: everything is there once they are done.
    const spans = receiver.spans();
    const runs = named(spans, 'invoke_agent acceptance-site');
    expect(runs.map((s) => s.attributes['agent_runtime.segment'])).toEqual(['start', 'approval']);
    for (const run of runs)
      expect(run.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'acceptance-site',
        'agent_runtime.run.id': runId,
      });
    const [first, second] = runs as [ReceivedSpan, ReceivedSpan];
    expect(first.attributes['agent_runtime.run.status']).toBe('suspended');
    expect(second.attributes['agent_runtime.run.status']).toBe('completed');
    // One trace: the approving process's segment is a child of the first one.
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([first.traceId]));
    expect(second.parentSpanId).toBe(first.spanId);
    expect(first.events.map((e) => e.name)).toContain('agent_runtime.suspended');
    expect(second.events.find((e) => e.name === 'agent_runtime.approval')?.attributes).toMatchObject({
      'agent_runtime.decision': 'approved',
      'agent_runtime.who': 'otel',
    });

    const nodes = spans.filter((s) => s.name.startsWith('node '));
    expect(nodes.map((s) => s.name)).toEqual(['node query', 'node create', 'node create']);
    const chats = spans.filter((s) => s.name.startsWith('chat '));
    expect(chats.length).toBeGreaterThanOrEqual(4);
    expect(chats[0]?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'scripted',
      'gen_ai.request.model': 'write-then-approve.yaml',
    });
    expect(chats[0]?.attributes['gen_ai.usage.input_tokens']).toEqual(expect.any(Number));
    for (const chat of chats) expect(nodes.map((n) => n.spanId)).toContain(chat.parentSpanId);

    const writes = named(spans, 'execute_tool web_site_create');
    expect(writes.map((s) => s.attributes)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'web_site_create',
          'gen_ai.tool.call.id': expect.any(String),
          'agent_runtime.outcome': 'DEFERRED',
          'agent_runtime.error_code': 'APPROVAL_REQUIRED',
          'agent_runtime.executed': false,
        }),
        expect.objectContaining({
          'agent_runtime.outcome': 'SUCCESS',
          'agent_runtime.executed': true,
          'agent_runtime.evidence_id': 'ev_3',
        }),
      ]),
    );
    expect(named(spans, 'execute_tool space_list')[0]?.attributes).toMatchObject({
      'agent_runtime.outcome': 'SUCCESS',
      'agent_runtime.evidence_id': 'ev_1',
    });
    // Contents stay home unless switched on.
    for (const span of spans) {
      expect(
        Object.keys(span.attributes).filter(
          (k) =>
            k.startsWith('gen_ai.input') ||
            k.startsWith('gen_ai.output') ||
            k.startsWith('gen_ai.tool.call.a') ||
            k.startsWith('gen_ai.tool.call.r'),
        ),
      ).toEqual([]);
    }

    const resources = receiver.requests
      .filter((r) => r.path === '/v1/traces')
      .flatMap((r) => jsonResourceAttributes(r.body));
    for (const resource of resources) expect(resource['service.name']).toBe('otel-demo-test');
    const metrics = receiver.requests
      .filter((r) => r.path === '/v1/metrics')
      .map((r) => r.body.toString('utf8'));
    expect(metrics.length).toBe(2);
    expect(metrics.join('\n')).toContain('"agent_runtime.tool.calls"');
    expect(metrics[0]).toContain('"agent_runtime.suspensions.waiting"');
    expect(metrics[1]).toContain('"agent_runtime.runs"');
    expect(metrics[1]).toContain('"gen_ai.client.token.usage"');
  });

  it('http/protobuf (the default): the same trace, decoded from protobuf', async () => {
    receiver.requests.length = 0;
    await demo({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_METRICS_EXPORTER: 'none' });
    expect(
      receiver.requests.every((r) => r.path === '/v1/traces' && r.contentType === 'application/x-protobuf'),
    ).toBe(true);
    const spans = receiver.spans();
    const runs = named(spans, 'invoke_agent acceptance-site');
    expect(runs).toHaveLength(2);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    expect(runs[1]?.parentSpanId).toBe(runs[0]?.spanId);
    expect(
      named(spans, 'execute_tool web_site_create').map((s) => s.attributes['agent_runtime.outcome']),
    ).toEqual(['DEFERRED', 'SUCCESS', 'SUCCESS']);
  });

  it('captures contents only when switched on', async () => {
    receiver.requests.length = 0;
    await demo({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
    });
    const spans = receiver.spans();
    const write = named(spans, 'execute_tool web_site_create')[0];
    expect(JSON.parse(String(write?.attributes['gen_ai.tool.call.arguments']))).toMatchObject({
      spaceId: 's1',
      name: '官网',
    });
    expect(String(write?.attributes['gen_ai.tool.call.result'])).toContain('APPROVAL_REQUIRED');
    const chat = spans.find((s) => s.name.startsWith('chat '));
    expect(
      String(chat?.attributes['gen_ai.system_instructions']) +
        String(chat?.attributes['gen_ai.input.messages']),
    ).toContain(SITE_INPUT);
  });

  it('a collector that is down neither fails nor holds the run', async () => {
    const down = await OtlpReceiver.start();
    const url = down.url;
    await down.close();
    const { first, second } = await demo({ OTEL_EXPORTER_OTLP_ENDPOINT: url });
    expect(first.stderr).not.toContain('internal error');
    expect(second.stderr).not.toContain('internal error');
  });
});
