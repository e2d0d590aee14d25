#!/usr/bin/env node
/**
 * `npm run bench:agentdojo`: the port of AgentDojo's slack suite (bench/agentdojo/README.md) through
 * `agent-runtime eval` with a fully compromised scripted model and every approval granted, with the
 * contracts (`full`) and without them (`guards-off`). Prints AgentDojo's three figures per
 * variant and the runs with writes the user's task does not make; writes the eval's results.json and
 * report.html to --out (default bench-results/agentdojo).
 *
 *   node dist/bench/agentdojo/run.js [--out DIR] [--tasks user_task_0,user_task_1] [--injections injection_task_1] [--variant full,guards-off] [--contracts today|untrusted|untrusted+links]
 */
import { appendFileSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { runEval } from '../../src/eval/run-eval.js';
import { builtServer, writeSlackSuite } from './slack/suite.js';

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'bench-results/agentdojo' },
    tasks: { type: 'string' },
    injections: { type: 'string' },
    variant: { type: 'string', default: 'full,guards-off' },
    contracts: { type: 'string', default: 'today' },
  },
});
const out = resolve(values.out);
const suiteDir = join(out, 'suite');
rmSync(suiteDir, { recursive: true, force: true });
mkdirSync(suiteDir, { recursive: true });
const list = (v: string | undefined) => (v ? v.split(',').map((s) => s.trim()) : undefined);
const userTasks = list(values.tasks);
const injectionTasks = list(values.injections);
const contracts = values.contracts;
if (contracts !== 'today' && contracts !== 'untrusted' && contracts !== 'untrusted+links') {
  console.error(`--contracts: expected today, untrusted or untrusted+links, got ${contracts}`);
  process.exit(2);
}
const suite = writeSlackSuite(suiteDir, builtServer(), {
  contracts,
  ...(userTasks ? { userTasks } : {}),
  ...(injectionTasks ? { injectionTasks } : {}),
});
const started = Date.now();
const variants = (list(values.variant) ?? ['full', 'guards-off']).filter(
  (v): v is 'full' | 'guards-off' => v === 'full' || v === 'guards-off',
);
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
const pct = (x: number) => `${(x * 100).toFixed(1)} %`.padStart(8);
console.log(
  `AgentDojo slack (port): ${Math.round((Date.now() - started) / 1000)} s, results in ${join(out, 'eval')}`,
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
