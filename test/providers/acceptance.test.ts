import { afterAll, describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { createProviderRegistry } from '../../src/model/providers.js';
import { createRuntime, type Runtime } from '../../src/runtime/create.js';
import type { RunSummary } from '../../src/records/summary.js';
import type { StoredEvent } from '../../src/store/store.js';
import { flowFile, Sandbox, turnsFile } from '../acceptance/cli.js';
import { SCENARIO_TIMEOUT_MS, SITE_INPUT } from '../acceptance/scenario.js';
import { playTurns, providerSetup, VARIANTS, type Variant } from './play.js';
import { startStrictFake, type StrictFake } from '../../src/testing/fake-model/server.js';

/**
 * The seed's acceptance scenarios (test/acceptance, docs/acceptance.md) through the three provider
 * paths, with and without streaming, against strict fakes that refuse what the real APIs refuse, with
 * the real demo-cloud MCP server and a SQLite store. Each scenario's command chain runs once with the
 * scripted model and once per provider path (in this process: the CLI path, with approval in a new
 * process, is test/providers/demo.test.ts); the provider runs must send no refused request and end
 * exactly like the scripted run: the same statuses, outputs, pending items and trace, step by step.
 */

type Step = { cmd: 'approve' | 'reject' | 'answer'; text?: string };
interface Scenario {
  name: string;
  flow: 'site' | 'query' | 'timeout';
  turns: string;
  input: string;
  then?: Step[];
  seed?: { siteId: string; name: string }[];
  /** The turns send arguments that are not JSON (see `comparable`). */
  rawArgs?: boolean;
}

const QUERY_INPUT = '查询我的空间和站点';
const SCENARIOS: Scenario[] = [
  {
    name: '1/8 write, approve',
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
  { name: '6 parameter provenance', flow: 'site', turns: 'provenance', input: SITE_INPUT, rawArgs: true },
  { name: '7 MCP tool timeout', flow: 'timeout', turns: 'timeout', input: '检查服务是否可用' },
  { name: '9 query node', flow: 'query', turns: 'query-finish', input: QUERY_INPUT },
  { name: '10 output rejected', flow: 'query', turns: 'output-rejected', input: QUERY_INPUT },
  {
    name: '11 approved write fails',
    flow: 'site',
    turns: 'approved-write-fails',
    input: SITE_INPUT,
    seed: [{ siteId: 'site_1', name: '官网' }],
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
  summaries: Pick<RunSummary, 'status' | 'reason' | 'outputs' | 'suspension'>[];
  steps: unknown[];
  writes: number;
}

const boxes: Sandbox[] = [];
const fakes: StrictFake[] = [];
afterAll(async () => {
  for (const fake of fakes.splice(0)) await fake.close();
  for (const box of boxes.splice(0)) box.dispose();
});

/** Runs the scenario's chain on a runtime of its own (its own SQLite file and demo data folder). */
async function play(scenario: Scenario, model: string, env: Record<string, string>): Promise<Outcome> {
  const box = new Sandbox();
  boxes.push(box);
  if (scenario.seed) box.seedSites(scenario.seed);
  const loaded = await loadFlow(flowFile(scenario.flow));
  for (const server of Object.values(loaded.flow.mcpServers ?? {})) {
    if (!('command' in server)) continue;
    server.env = { ...server.env, DEMO_CLOUD_DATA: box.dataDir };
    // A loaded machine may take longer than the default 10 s to start a server.
    server.connectTimeoutMs = 60_000;
  }
  const providers = createProviderRegistry({ env });
  const runtime: Runtime = createRuntime({ store: `sqlite:${box.db}`, logger: false, providers });
  try {
    const summaries = [await runtime.start(loaded, { input: { text: scenario.input }, model })];
    const runId = summaries[0]!.runId;
    for (const step of scenario.then ?? []) {
      const options = { comment: step.text ?? null, who: 'acceptance' };
      if (step.cmd === 'answer')
        summaries.push(await runtime.answer(runId, step.text ?? '', { who: 'acceptance' }));
      else summaries.push(await runtime[step.cmd](runId, options));
    }
    const events: StoredEvent[] = [];
    for await (const event of runtime.events(runId, { follow: false })) events.push(event);
    return withoutPendingIds({
      summaries: summaries.map(({ status, reason, outputs, suspension }) => ({
        status,
        reason,
        outputs,
        suspension,
      })),
      steps: events.map(step),
      writes: box.writes().length,
    });
  } finally {
    await runtime.close();
  }
}

/** Pending ids are derived from the run id, which differs between runs: compared as a placeholder. */
function withoutPendingIds(outcome: Outcome): Outcome {
  return JSON.parse(JSON.stringify(outcome).replace(/pnd_[0-9a-f]{16}/g, 'pnd_*')) as Outcome;
}

/** An event without what differs between model paths (times, usage). */
function step(event: StoredEvent): unknown {
  const {
    seq: _seq,
    ts: _ts,
    runId: _runId,
    usage: _usage,
    ...rest
  } = event as StoredEvent & { usage?: unknown };
  return rest;
}

/**
 * The outcome as compared for a variant. Anthropic's non-streaming API always returns tool arguments as
 * a JSON object, so arguments that are not JSON reach the runtime as a string there (ARG_JSON_INVALID
 * all the same, with another detail in its message and the string as `args`): those two fields are
 * left out of the comparison for that path only.
 */
function comparable(outcome: Outcome, scenario: Scenario, variant: Variant | null): Outcome {
  if (!scenario.rawArgs || (variant !== null && (variant.kind !== 'anthropic' || variant.stream)))
    return outcome;
  const steps = outcome.steps.map((s) => {
    const e = s as { type?: string; errorCode?: unknown };
    if (e.type !== 'tool.invoked' || e.errorCode !== 'ARG_JSON_INVALID') return s;
    const { message: _message, args: _args, ...rest } = s as Record<string, unknown>;
    return rest;
  });
  return { ...outcome, steps };
}

async function throughProvider(
  scenario: Scenario,
  variant: Variant,
): Promise<{ outcome: Outcome; fake: StrictFake }> {
  const fake = await startStrictFake(variant.kind, playTurns(turnsFile(scenario.turns)));
  fakes.push(fake);
  const { model, env } = providerSetup(variant.kind, fake.url, fake.key, variant.stream);
  return { outcome: await play(scenario, model, env), fake };
}

describe.each(SCENARIOS)('scenario $name through real provider paths', (scenario) => {
  let scripted: Promise<Outcome> | null = null;
  const baseline = (): Promise<Outcome> =>
    (scripted ??= play(scenario, `scripted:${turnsFile(scenario.turns)}`, {}));

  // One after the other: each test starts a demo MCP server, which a loaded machine starts slowly.
  it.each(VARIANTS)(
    '$name: no refused request, the same run as the scripted model',
    async (variant) => {
      const expected = await baseline();
      const { outcome, fake } = await throughProvider(scenario, variant);
      expect(fake.refusals().map((r) => r.refused?.message)).toEqual([]);
      expect(fake.requests.every((r) => r.stream === variant.stream)).toBe(true);
      expect(comparable(outcome, scenario, variant)).toEqual(comparable(expected, scenario, variant));
    },
    SCENARIO_TIMEOUT_MS,
  );
});
