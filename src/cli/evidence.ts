import type { EvidenceRecord } from '../records/run-state.js';
import { COMMON, UsageError, parse } from './args.js';
import { cliContext } from './context.js';
import { oneLine, table } from './text.js';
import { jsonLine, visible, visibleDeep } from './visible.js';

/**
 * `evidence RUN_ID [EVIDENCE_ID] [--json]`: without an id, one line per evidence record of the run
 * (id, tool, outcome, node, time, arguments, a preview of the payload); with an id, that record with
 * its full payload. `--json` prints the list or the record as JSON on stdout. An id the run does not
 * have is a usage error (exit 2) naming the ids it has.
 */
export async function evidence(argv: string[]): Promise<number> {
  const parsed = parse('evidence', argv, COMMON, { min: 1, max: 2, names: 'RUN_ID' });
  const [runId, evidenceId] = parsed.positionals as [string, string | undefined];
  const ctx = cliContext(parsed);
  try {
    const records = await ctx.runtime.evidence(runId);
    if (evidenceId === undefined) {
      ctx.out(ctx.json ? jsonLine(records) : listText(runId, visibleDeep(records)));
      return 0;
    }
    const record = records.find((e) => e.id === evidenceId);
    if (!record) {
      const has = records.length > 0 ? `it has ${records.map((e) => e.id).join(', ')}` : 'it has none';
      throw new UsageError(`evidence: run ${runId} has no evidence ${evidenceId} (${has})`);
    }
    ctx.out(ctx.json ? jsonLine(record) : recordText(record));
    return 0;
  } finally {
    ctx.progress.flush();
    await ctx.runtime.close();
  }
}

function listText(runId: string, records: readonly EvidenceRecord[]): string {
  if (records.length === 0) return `run ${runId} has no evidence yet\n`;
  const rows = records.map((e) => [
    e.id,
    e.tool + (e.lookBack ? ' (look-back)' : ''),
    e.errorCode ? `${e.outcome} ${e.errorCode}` : e.outcome,
    e.nodeId,
    e.ts,
    oneLine(e.args, 40),
    oneLine(e.payload, 60),
  ]);
  return table(['ID', 'TOOL', 'OUTCOME', 'NODE', 'TIME', 'ARGS', 'PAYLOAD'], rows);
}

function recordText(record: EvidenceRecord): string {
  const e = visibleDeep({ ...record, payload: null });
  const payload =
    typeof record.payload === 'string' ? record.payload : JSON.stringify(record.payload ?? null, null, 2);
  const lines = [
    `evidence ${e.id}`,
    `tool:     ${e.tool}${e.lookBack ? ' (runtime look-back)' : ''}`,
    `outcome:  ${e.outcome}${e.errorCode ? ` ${e.errorCode}` : ''}`,
    `node:     ${e.nodeId} (call ${e.callId})`,
    `time:     ${e.ts}`,
    `args:     ${JSON.stringify(e.args)}`,
    'payload:',
    // Indented: a line of the payload can never pass for a line of the CLI's own.
    visible(payload, { keepLines: true }).replace(/^/gm, '  '),
  ];
  return `${lines.join('\n')}\n`;
}
