import type { Runtime } from '../runtime/runtime.js';
import { RunError } from '../domain/run-error.js';
import { replyOf } from './metrics.js';
import type { SuiteCase } from './suite.js';

/**
 * Turns a stored run into a suite case (`eval --from-run`): its input, the answers and approval
 * decisions people gave in order, its model, and as expectations its status, outputs and reply.
 * Throws RunError RUN_NOT_FOUND for an unknown run and RUN_CONFLICT for one that has not ended.
 */
export async function caseFromRun(runtime: Runtime, runId: string): Promise<SuiteCase> {
  const summary = await runtime.status(runId);
  if (summary.status === 'running')
    throw new RunError(
      'RUN_CONFLICT',
      `run ${runId} is still running: a case is made from a run that stopped`,
    );
  const record = await (await runtime.db()).getRun(runId);
  if (!record) throw new RunError('RUN_NOT_FOUND', `unknown run id ${runId}`);
  const answers: string[] = [];
  const approvals: ('approve' | 'reject')[] = [];
  const events = [];
  for await (const event of runtime.events(runId, { follow: false })) {
    events.push(event);
    if (event.type !== 'run.resumed') continue;
    if (event.kind === 'FOLLOW_UP' && typeof event.answer === 'string') answers.push(event.answer);
    if (event.kind === 'APPROVAL') approvals.push(event.decision === 'approved' ? 'approve' : 'reject');
  }
  const reply = replyOf(summary, events);
  const c: SuiteCase = {
    id: `from-${runId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 59)}`,
    description: `made from run ${runId} of flow ${record.flowId}`,
    input: record.input,
    expect: {
      status: summary.status === 'suspended' ? 'suspended' : summary.status,
      outputs: { equals: summary.outputs },
      ...(reply !== null ? { reply } : {}),
    },
  };
  if (answers.length > 0) c.answers = answers;
  if (approvals.length > 0) c.approvals = approvals;
  if (record.model !== null) c.model = record.model;
  return c;
}
