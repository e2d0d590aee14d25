import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../src/log/logger.js';
import { createProviderRegistry } from '../../src/model/providers.js';
import { reached } from '../server/helpers.js';
import { SEC, startTarget, type Target } from './helpers.js';

/**
 * Finding 13 of issue 27: a model failure showed viewers (API, trace, console) and the OpenTelemetry
 * span status the provider's host:port and its answer text. Viewers now get the status or error code
 * only; the server log keeps the detail.
 */

const CANARY = 'CANARY-upstream-5b17';
const INNER = '10.9.8.7:5432';

let upstream: Server;
let upPort: number;
let downPort: number;
let t: Target;
const log = new MemoryLogger();
const spans = new InMemorySpanExporter();

beforeAll(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `db ${INNER} down ${CANARY}`, type: 'server_error' } }));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upPort = (upstream.address() as AddressInfo).port;
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  downPort = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const env = {
    AGENT_RUNTIME_PROVIDER_UP_BASE_URL: `http://127.0.0.1:${upPort}/v1`,
    AGENT_RUNTIME_PROVIDER_DOWN_BASE_URL: `http://127.0.0.1:${downPort}/v1`,
    AGENT_RUNTIME_MODEL_MAX_RETRIES: '0',
  };
  t = await startTarget({
    runtime: {
      logger: log,
      providers: createProviderRegistry({ env }),
      telemetry: {
        tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }),
      },
    },
  });
});
afterAll(async () => {
  await t.stop();
  await new Promise((resolve) => upstream.close(resolve));
});

const flow = { id: 'talk', version: 1, locale: 'en', nodes: [{ id: 'main' }] };

/** Everything a viewer may read of the run: its summary, its trace (API) and the spans' status. */
async function shown(runId: string): Promise<string> {
  const summary = await (await t.call('GET', `/v1/runs/${runId}`, { token: SEC.viewer })).text();
  const events = await (await t.call('GET', `/v1/runs/${runId}/events`, { token: SEC.viewer })).text();
  const statuses = spans
    .getFinishedSpans()
    .map((s) => s.status.message ?? '')
    .join('\n');
  return [summary, events, statuses].join('\n');
}

describe('a model failure', () => {
  it.each([
    ['up:m', /up:m: HTTP 500 Internal Server Error/],
    ['down:m', /down:m: the provider could not be reached \(ECONNREFUSED\)/],
  ])('%s shows viewers no provider host, port or answer text; the log keeps them', async (model, said) => {
    const started = await t.call('POST', '/v1/runs', {
      token: SEC.admin,
      json: { flow, input: 'x', model },
    });
    expect(started.status).toBeLessThan(300);
    const { runId } = (await started.json()) as { runId: string };
    await reached(t.runtime, runId, 'run.failed');
    const text = await shown(runId);
    expect(text).toMatch(said);
    // The chat span's status says it too (the same safe text).
    expect(spans.getFinishedSpans().some((s) => said.test(s.status.message ?? ''))).toBe(true);
    for (const hidden of [CANARY, INNER, '127.0.0.1', `:${upPort}`, `:${downPort}`, 'Cannot connect'])
      expect(text, hidden).not.toContain(hidden);
    const logged = log.find('MODEL call failed').map((r) => JSON.stringify(r.fields));
    expect(logged.join('\n')).toContain(model === 'up:m' ? CANARY : `127.0.0.1:${downPort}`);
  });
});
