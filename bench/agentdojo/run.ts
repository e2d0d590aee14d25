#!/usr/bin/env node
/**
 * `npm run bench:agentdojo`: the ports of AgentDojo's slack and travel suites (bench/agentdojo/README.md)
 * through `agent-runtime eval` with a fully compromised scripted model and every approval granted,
 * with the contracts (`full`) and without them (`guards-off`). Prints AgentDojo's three figures per
 * suite and variant and the runs with writes the user's task does not make; writes each suite's
 * results.json and report.html to --out/<suite>/eval (default bench-results/agentdojo).
 *
 *   node dist/bench/agentdojo/run.js [--suite slack|travel|slack,travel] [--out DIR] [--tasks user_task_0,user_task_1]
 *     [--injections injection_task_1] [--variant full,guards-off] [--contracts SET]
 *
 * --contracts: slack `today`, `untrusted` or `untrusted+links`; travel `today`, `untrusted` or
 * `untrusted+intent` (default `today`).
 */
import { appendFileSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { runEval } from '../../src/eval/run-eval.js';
import { builtServer } from './scripted.js';
import { writeSlackSuite } from './slack/suite.js';
import { writeTravelSuite } from './travel/suite.js';

const CONTRACTS = {
  slack: ['today', 'untrusted', 'untrusted+links'],
  travel: ['today', 'untrusted', 'untrusted+intent'],
} as const;
type Suite = keyof typeof CONTRACTS;

const { values } = parseArgs({
  options: {
    suite: { type: 'string', default: 'slack,travel' },
    out: { type: 'string', default: 'bench-results/agentdojo' },
    tasks: { type: 'string' },
    injections: { type: 'string' },
    variant: { type: 'string', default: 'full,guards-off' },
    contracts: { type: 'string', default: 'today' },
  },
});
const list = (v: string | undefined) => (v ? v.split(',').map((s) => s.trim()) : undefined);
const suites = list(values.suite) ?? [];
for (const s of suites)
  if (!(s in CONTRACTS)) {
    console.error(`--suite: expected slack, travel or both (slack,travel), got ${s}`);
    process.exit(2);
  }
const contracts = values.contracts;
for (const s of suites as Suite[])
  if (!(CONTRACTS[s] as readonly string[]).includes(contracts)) {
    console.error(`--contracts: the ${s} suite has ${CONTRACTS[s].join(', ')}, got ${contracts}`);
    process.exit(2);
  }
const userTasks = list(values.tasks);
const injectionTasks = list(values.injections);
const variants = (list(values.variant) ?? ['full', 'guards-off']).filter(
  (v): v is 'full' | 'guards-off' => v === 'full' || v === 'guards-off',
);
const pct = (x: number) => `${(x * 100).toFixed(1)} %`.padStart(8);

for (const name of suites as Suite[]) {
  const out = resolve(values.out, name);
  const suiteDir = join(out, 'suite');
  rmSync(suiteDir, { recursive: true, force: true });
  mkdirSync(suiteDir, { recursive: true });
  const choice = {
    ...(userTasks ? { userTasks } : {}),
    ...(injectionTasks ? { injectionTasks } : {}),
  };
  const suite =
    name === 'slack'
      ? writeSlackSuite(suiteDir, builtServer(), { ...choice, contracts: contracts as 'today' })
      : writeTravelSuite(suiteDir, builtServer(), { ...choice, contracts: contracts as 'today' });
  const started = Date.now();
  // One line per trial as it ends (trials.jsonl): the figures of a run cut short can still be read.
  const trialLog = join(out, 'trials.jsonl');
  const results = await runEval(suite, {
    variants,
    out: join(out, 'eval'),
    onTrial: (cell, trial) =>
      appendFileSync(
        trialLog,
        `${JSON.stringify({ ...cell, passed: trial.passed, attack: trial.attack ?? null, unexpectedWrites: trial.unexpectedWrites ?? [] })}\n`,
      ),
  });
  console.log(
    `AgentDojo ${name} (port, contracts ${contracts}): ${Math.round((Date.now() - started) / 1000)} s, results in ${join(out, 'eval')}`,
  );
  console.log('variant            utility  under attack  attack success  runs with unexpected writes');
  for (const f of results.attacks ?? [])
    console.log(
      `${f.variant.padEnd(18)} ${pct(f.utility)}  ${pct(f.utilityUnderAttack)}      ${pct(f.attackSuccessRate)}  ${f.unexpectedWriteRuns.length}` +
        `   (${f.runs} runs, ${f.attackedRuns} attacked, ${f.successfulAttacks.length} successful)`,
    );
  for (const f of results.attacks ?? [])
    for (const a of f.successfulAttacks)
      console.log(`  ${f.variant}: ${a.case} under ${a.goal ?? '-'} succeeded`);
}
