/**
 * A second process on the same SQLite file, driven by test/store/sqlite.test.ts:
 *   read PATH RUN_ID                    prints the run and its rows as one JSON line
 *   write PATH RUN_ID                   commits one step (state, event, message, evidence), prints the run
 *   race PATH RUN_ID VERSION OWNER      prints "ready", waits for a line on stdin, commits at VERSION,
 *                                       prints {"owner","result":"won"|"conflict"}
 *   churn PATH RUN_ID                   commits steps forever, printing each new version (to be killed)
 */
import { createInterface } from 'node:readline';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { type Commit, type RunRecord } from '../../../src/store/store.js';
import { runState } from '../../../src/testing/store-contract/helpers.js';
import { StoreError } from '../../../src/store/store-error.js';

const [command, path, runIdArg, ...rest] = process.argv.slice(2);
if (command === undefined || path === undefined || runIdArg === undefined) {
  throw new Error('usage: COMMAND PATH RUN_ID …');
}
const runId: string = runIdArg;
const store = new SqliteStore({ path });

function stepOf(run: RunRecord, note: string): Commit {
  const seq = run.lastSeq + 1;
  return {
    runId,
    expectedVersion: run.version,
    patch: { state: runState(runId, { note, seq }) },
    events: [{ seq, ts: new Date().toISOString(), runId, type: 'step', note }],
    messages: [{ nodeRun: 'child#1', index: seq, message: { note } }],
    evidence: [
      {
        id: `ev_child_${seq}`,
        tool: 'child',
        args: {},
        fingerprint: `fp${seq}`,
        outcome: 'SUCCESS' as const,
        errorCode: null,
        payload: { seq },
        ts: new Date().toISOString(),
        nodeId: 'child',
        callId: `c${seq}`,
      },
    ],
  };
}

async function current(): Promise<RunRecord> {
  const run = await store.getRun(runId);
  if (!run) throw new Error(`no run ${runId}`);
  return run;
}

async function main(): Promise<void> {
  switch (command) {
    case 'read': {
      const out = {
        run: await store.getRun(runId),
        events: await store.events(runId),
        evidence: await store.evidence(runId),
        messages: await store.messages(runId, 'query#1'),
      };
      process.stdout.write(`${JSON.stringify(out)}\n`);
      break;
    }
    case 'write':
      process.stdout.write(`${JSON.stringify(await store.commit(stepOf(await current(), 'from child')))}\n`);
      break;
    case 'race': {
      const [version, owner] = rest;
      const run = await current();
      process.stdout.write('ready\n');
      const lines = createInterface({ input: process.stdin });
      for await (const _line of lines) break;
      try {
        await store.commit({ ...stepOf(run, owner!), expectedVersion: Number(version) });
        process.stdout.write(`${JSON.stringify({ owner, result: 'won' })}\n`);
      } catch (error) {
        if (!(error instanceof StoreError && error.code === 'VERSION_CONFLICT')) throw error;
        process.stdout.write(`${JSON.stringify({ owner, result: 'conflict' })}\n`);
      }
      break;
    }
    case 'churn': {
      let run = await current();
      for (;;) {
        run = await store.commit(stepOf(run, 'churn'));
        process.stdout.write(`${run.version}\n`);
      }
    }
    default:
      throw new Error(`unknown command ${command}`);
  }
  await store.close();
}

await main();
