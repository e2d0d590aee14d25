import { afterAll, describe, expect, it } from 'vitest';
import { flowFile, turnsFile, type CliResult, type Sandbox, type TraceEvent } from '../acceptance/cli.js';
import { SCENARIO_TIMEOUT_MS, SITE_INPUT, useSandbox } from '../acceptance/scenario.js';
import { playTurns, providerSetup, VARIANTS, type Variant } from './play.js';
import { startStrictFake, type StrictFake } from './strict-fake.js';

/**
 * The seed's acceptance scenarios (test/acceptance, docs/acceptance.md) through the three provider
 * paths, with and without streaming, against strict fakes that refuse what the real APIs refuse. Each
 * scenario's command chain runs once with the scripted model and once per provider path, every command
 * a CLI subprocess; the provider runs must send no refused request and end exactly like the scripted
 * run: the same exit codes, statuses and outputs, and the same trace step by step.
 */

type Step = { cmd: 'approve' | 'reject' | 'answer'; text?: string };
interface Scenario {
  name: string;
  flow: 'site' | 'query' | 'timeout';
  turns: string;
  input: string;
  then?: Step[];
}

const QUERY_INPUT = '查询我的空间和站点';
const SCENARIOS: Scenario[] = [
  {
    name: '1/8 write, approve, complete',
    flow: 'site',
    turns: 'write-then-approve',
    input: SITE_INPUT,
    then: [{ cmd: 'approve', text: '可以创建' }],
  },
  { name: '2 approval first', flow: 'site', turns: 'approval-first', input: SITE_INPUT },
  { name: '3 approval names the wrong tool', flow: 'site', turns: 'approval-mismatch', input: SITE_INPUT },
  {
    name: '4 the same question after the answer',
    flow: 'site',
    turns: 'follow-up-answered',
    input: '在默认空间建一个新站点',
    then: [{ cmd: 'answer', text: '就叫 官网 吧' }],
  },
  { name: '5 verbal confirmation', flow: 'site', turns: 'follow-up-ungrounded', input: SITE_INPUT },
  { name: '6 parameter provenance', flow: 'site', turns: 'provenance', input: SITE_INPUT },
  { name: '7 MCP tool timeout', flow: 'timeout', turns: 'timeout', input: '检查服务是否可用' },
  { name: '9 query node', flow: 'query', turns: 'query-finish', input: QUERY_INPUT },
  { name: '10 output rejected', flow: 'query', turns: 'output-rejected', input: QUERY_INPUT },
  {
    name: '11 approved write fails',
    flow: 'site',
    turns: 'approved-write-fails',
    input: SITE_INPUT,
    then: [{ cmd: 'approve' }, { cmd: 'answer', text: '换成 官网二号' }],
  },
  { name: '12 downstream business failure', flow: 'query', turns: 'business-failure', input: QUERY_INPUT },
  { name: 'five identical rejections', flow: 'query', turns: 'no-progress', input: QUERY_INPUT },
  {
    name: 'declined approval',
    flow: 'site',
    turns: 'reject',
    input: SITE_INPUT,
    then: [{ cmd: 'reject', text: '名称要改' }],
  },
];

/** What must be the same whichever model path played the turns. */
interface Outcome {
  exits: number[];
  summaries: { status?: string; reason?: string; outputs?: unknown; suspension?: unknown }[];
  steps: unknown[];
  writes: number;
}

const fakes: StrictFake[] = [];
afterAll(async () => {
  for (const fake of fakes.splice(0)) await fake.close();
});

const sandbox = useSandbox();

async function play(scenario: Scenario, box: Sandbox, model: string): Promise<Outcome> {
  const results: CliResult[] = [
    await box.cli(['run', flowFile(scenario.flow), '--input', scenario.input, '--model', model]),
  ];
  const runId = results[0]!.summary?.runId ?? '';
  for (const step of scenario.then ?? []) {
    const args =
      step.cmd === 'answer'
        ? [step.cmd, runId, step.text ?? '']
        : [step.cmd, runId, ...(step.text ? ['--comment', step.text] : [])];
    results.push(await box.cli(args));
  }
  const events = (await box.trace(runId)).events;
  return {
    exits: results.map((r) => r.code),
    summaries: results.map((r) => ({
      status: r.summary?.status,
      reason: r.summary?.reason,
      outputs: r.summary?.outputs,
      suspension: r.summary?.suspension,
    })),
    steps: events.map(step),
    writes: box.writes().length,
  };
}

/** An event without what differs between model paths (times, the model's name, usage). */
function step(event: TraceEvent): unknown {
  const { seq: _seq, ts: _ts, runId: _runId, usage: _usage, model: _model, ...rest } = event;
  return rest;
}

async function throughProvider(
  scenario: Scenario,
  variant: Variant,
): Promise<{ outcome: Outcome; fake: StrictFake }> {
  const fake = await startStrictFake(variant.kind, playTurns(turnsFile(scenario.turns)));
  fakes.push(fake);
  const box = sandbox();
  const { model, env } = providerSetup(variant.kind, fake.url, fake.key, variant.stream);
  box.env = env;
  return { outcome: await play(scenario, box, model), fake };
}

describe.each(SCENARIOS)('scenario $name through real provider paths', (scenario) => {
  let scripted: Promise<Outcome> | null = null;
  const baseline = (): Promise<Outcome> =>
    (scripted ??= play(scenario, sandbox(), `scripted:${turnsFile(scenario.turns)}`));

  it.concurrent.each(VARIANTS)(
    '$name: no refused request, the same run as the scripted model',
    async (variant) => {
      const [{ outcome, fake }, expected] = await Promise.all([
        throughProvider(scenario, variant),
        baseline(),
      ]);
      expect(fake.refusals().map((r) => r.refused?.message)).toEqual([]);
      expect(fake.requests.every((r) => r.stream === variant.stream)).toBe(true);
      expect(outcome).toEqual(expected);
    },
    SCENARIO_TIMEOUT_MS,
  );
});
