import type { LoadedFlow } from '../flow/load.js';
import type { Logger } from '../log/logger.js';
import { validateRunInput } from '../flow/input.js';
import type { RunSummary } from '../records/summary.js';
import type { FollowUpPending, RunSuspension } from '../records/pending.js';
import type { z } from 'zod';
import type { ApprovalPendingSchema } from '../records/pending.js';
import type { Runtime } from '../runtime/runtime.js';
import type { AcceptingCall } from './background.js';
import type { InputRequiredResult } from '@modelcontextprotocol/server';
import { RunError } from '../domain/run-error.js';
import { runInputOf, runResult, type FlowCallResult } from './mcp-flow-tool.js';

/** What a flow tool call answers: the run's result, or (2026-07-28) the question it waits on. */
export type FlowCallAnswer = FlowCallResult | InputRequiredResult;

/** A form the calling client is asked to fill (MCP elicitation, form mode). */
export interface ElicitForm {
  readonly message: string;
  readonly requestedSchema: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
}

/** The client's answer to an ElicitForm. */
export interface ElicitAnswer {
  readonly action: 'accept' | 'decline' | 'cancel';
  readonly content?: Record<string, unknown> | undefined;
}

/** Who calls a flow tool, and what the transport lets the call do. */
export interface FlowCaller {
  /** Recorded as `who` on decisions and answers given through the client. */
  readonly name: string;
  /** The tenant runs are started in and looked up by (null: none). */
  readonly tenant: string | null;
  /** True when the caller's role may approve writes and answer questions (operator or admin). */
  readonly mayApprove: boolean;
  /** The token's role, checked against an approval policy's `approvers.roles` (absent: not checked). */
  readonly role?: string;
}

/** What a flow tool call runs against (the HTTP server and `mcp serve` each provide one). */
export interface FlowCallHost {
  readonly runtime: Runtime;
  readonly caller: FlowCaller;
  /**
   * Runs a start or a response and resolves with the run's summary once it completed, failed or
   * suspended (the server tracks it for its graceful shutdown; `runId` is null for a start).
   */
  drive(runId: string | null, call: AcceptingCall): Promise<RunSummary>;
  /** The console page of a run, or null when there is no console. */
  consoleUrl(runId: string): string | null;
  /** Asks the client to fill a form, or null when it cannot be asked (no elicitation support). */
  readonly elicit: ((form: ElicitForm) => Promise<ElicitAnswer>) | null;
  /**
   * Asks the client in-band (2026-07-28): the `input_required` result carrying `form` and a request
   * state naming the run and its pending item (null: absent, e.g. no elicitation declared). The
   * client's retried call is continued with continueAnswered.
   */
  readonly inputRequired?:
    ((runId: string, pendingId: string | null, form: ElicitForm) => Promise<InputRequiredResult>) | null;
  /** The model of a run started by the flow (undefined: the flow's own). */
  model?(loaded: LoadedFlow): string | undefined;
  /**
   * How long a call waits for the run to stop before it answers `running` with the run id (the run
   * goes on; run_status gives its result). Default DEFAULT_CALL_WAIT_MS.
   */
  readonly waitMs?: number;
  /** Told of a run that failed to be driven after its call stopped waiting (nobody awaits it then). */
  readonly logger?: Logger;
}

/** How long a call waits for its run by default: under the 60 s request timeout of common clients. */
export const DEFAULT_CALL_WAIT_MS = 45_000;

/** Bad arguments to a flow tool: the client gets them as a tool error, nothing was started. */
export function inputProblems(loaded: LoadedFlow, args: Record<string, unknown>): string[] {
  return validateRunInput(loaded.flow, runInputOf(loaded.flow, args));
}

/**
 * A flow tool call: starts the run with the arguments as input and drives it; while it waits for a
 * person and the caller may approve and the client takes elicitation, asks the client (approve or
 * reject a write, answer a question): by elicitation, going on with the answer, or (2026-07-28) by
 * answering `input_required`. Else the run's result (runResult). Nothing the client sends decides a
 * write unless `caller.mayApprove`.
 */
export async function callFlow(
  host: FlowCallHost,
  loaded: LoadedFlow,
  args: Record<string, unknown>,
): Promise<FlowCallAnswer> {
  const input = runInputOf(loaded.flow, args);
  const model = host.model?.(loaded);
  const started = await driveWithin(host, null, (onAccepted) =>
    host.runtime.start(loaded, {
      input: input as Record<string, unknown>,
      tenant: host.caller.tenant,
      // The starter cannot count as one of several approvers (docs/approvals.md).
      who: host.caller.name,
      onAccepted,
      ...(model === undefined ? {} : { model }),
    }),
  );
  return settle(host, started);
}

/**
 * Continues a suspended run while the caller may approve and the client can be asked: by elicitation
 * (`host.elicit`, 2025 revisions) as long as answers come; or, for a 2026-07-28 call, by answering
 * `input_required` with the question (`host.inputRequired`). Then the run's result (runResult).
 */
export async function settle(host: FlowCallHost, first: RunSummary): Promise<FlowCallAnswer> {
  let summary = first;
  while (summary.status === 'suspended' && summary.suspension && host.caller.mayApprove) {
    const suspension = summary.suspension;
    const form = questionOf(suspension);
    if (form === null) break;
    if (host.elicit) {
      const next = await applyAnswer(host, summary.runId, suspension, await host.elicit(form));
      if (next === null) break;
      summary = next;
      continue;
    }
    if (host.inputRequired) return host.inputRequired(summary.runId, suspension.pending.id ?? null, form);
    break;
  }
  return runResult(summary, host.consoleUrl(summary.runId));
}

/**
 * The form the client is asked for what a suspended run waits for: the approval of a write
 * (decision approve/reject and a comment), the model's question (its options as an enum) or an MCP
 * server's own form; null when it cannot be asked so (an authorization, a URL-mode request).
 */
export function questionOf(suspension: RunSuspension): ElicitForm | null {
  const pending = suspension.pending;
  if (suspension.kind === 'APPROVAL' && 'tool' in pending) return approvalForm(pending);
  if (!('question' in pending) || pending.authorization) return null;
  return questionForm(pending);
}

/**
 * Applies the client's answer to what the run waits for (`suspension`, the item of questionOf) and
 * drives the run on: approve or reject a write (cancel leaves it pending), answer the model's
 * question (only an accepted answer), or pass the action and content back to the MCP server that
 * asked. Null when nothing was applied (the item stays pending for the console).
 */
export function applyAnswer(
  host: FlowCallHost,
  runId: string,
  suspension: RunSuspension,
  answer: ElicitAnswer,
): Promise<RunSummary | null> {
  const pending = suspension.pending;
  const who = host.caller.name;
  const expect = pending.id;
  const role = host.caller.role;
  const options = {
    who,
    ...(role === undefined ? {} : { role }),
    ...(expect === undefined ? {} : { expect }),
  };
  if (suspension.kind === 'APPROVAL' && 'tool' in pending) {
    // Cancelled (closed, not answered): the write stays pending for the console.
    if (answer.action === 'cancel') return Promise.resolve(null);
    const approve = answer.action === 'accept' && answer.content?.decision === 'approve';
    const comment = typeof answer.content?.comment === 'string' ? answer.content.comment : null;
    return driveWithin(host, runId, (onAccepted) =>
      approve
        ? host.runtime.approve(runId, { ...options, comment, onAccepted })
        : host.runtime.reject(runId, { ...options, comment, onAccepted }),
    );
  }
  if (!('question' in pending) || pending.authorization) return Promise.resolve(null);
  if (pending.elicitation) {
    // An MCP server's question inside the run: its answer goes back as that server's form.
    const text = answer.action === 'accept' ? JSON.stringify(answer.content ?? {}) : '';
    return driveWithin(host, runId, (onAccepted) =>
      host.runtime.answer(runId, text, { ...options, action: answer.action, onAccepted }),
    );
  }
  if (answer.action !== 'accept' || typeof answer.content?.answer !== 'string') return Promise.resolve(null);
  const text = answer.content.answer;
  return driveWithin(host, runId, (onAccepted) =>
    host.runtime.answer(runId, text, { ...options, onAccepted }),
  );
}

function approvalForm(pending: z.infer<typeof ApprovalPendingSchema>): ElicitForm {
  const args = JSON.stringify(pending.args);
  return {
    message: `Approve ${pending.tool} ${args}? ${pending.summary}`.trim(),
    requestedSchema: {
      type: 'object',
      properties: {
        decision: {
          type: 'string',
          title: 'Decision',
          enum: ['approve', 'reject'],
          description: `approve: ${pending.tool} runs with these arguments; reject: it does not run`,
        },
        comment: { type: 'string', title: 'Comment' },
      },
      required: ['decision'],
    },
  };
}

function questionForm(pending: FollowUpPending): ElicitForm | null {
  const asked = pending.elicitation;
  if (asked) {
    if (asked.mode !== 'form' || !asked.requestedSchema) return null;
    return {
      message: asked.message,
      requestedSchema: asked.requestedSchema as ElicitForm['requestedSchema'],
    };
  }
  const answer =
    pending.options && pending.options.length > 0
      ? { type: 'string', title: 'Answer', enum: pending.options }
      : { type: 'string', title: 'Answer' };
  return {
    message: pending.question,
    requestedSchema: { type: 'object', properties: { answer }, required: ['answer'] },
  };
}

/** The pending item a 2026-07-28 client was asked about, as its verified request state names it. */
export interface AskedItem {
  readonly runId: string;
  /** The pending item's id (null: the item had none; the run's current item is answered). */
  readonly pendingId: string | null;
}

/**
 * A retried 2026-07-28 call: applies the client's answer (null: none readable, asked again) to the
 * item `asked` names, then settles the run as a call does. RunError RUN_CONFLICT when the run no
 * longer waits for that item (answered meanwhile, by the console or a replayed answer); null when the
 * caller may not see the run.
 */
export async function continueAnswered(
  host: FlowCallHost,
  asked: AskedItem,
  answer: ElicitAnswer | null,
): Promise<FlowCallAnswer | null> {
  const { runId, pendingId } = asked;
  const record = await (await host.runtime.db()).getRun(runId);
  if (!record || (host.caller.tenant !== null && record.tenant !== host.caller.tenant)) return null;
  const summary = await host.runtime.status(runId);
  const suspension = summary.status === 'suspended' ? summary.suspension : undefined;
  if (!suspension || (pendingId !== null && suspension.pending.id !== pendingId))
    throw new RunError(
      'RUN_CONFLICT',
      `run ${runId} no longer waits for the item this answer was asked for (it is ${summary.status})`,
      { runId },
    );
  if (answer === null) return settle(host, summary);
  const next = await applyAnswer(host, runId, suspension, answer);
  return next === null ? runResult(summary, host.consoleUrl(runId)) : settle(host, next);
}

/**
 * `run_status {runId, waitSeconds}`: the run's result (runResult), after waiting up to `waitSeconds`
 * (default 30, at most 120) while it is still running; a suspended run is continued by elicitation
 * as a flow call is. Null when the caller may not see the run (another tenant's, or unknown).
 */
export async function runStatus(
  host: FlowCallHost,
  runId: string,
  waitSeconds = 30,
): Promise<FlowCallAnswer | null> {
  const deadline = Date.now() + Math.min(Math.max(waitSeconds, 0), 120) * 1000;
  const record = await (await host.runtime.db()).getRun(runId);
  if (!record || (host.caller.tenant !== null && record.tenant !== host.caller.tenant)) return null;
  let summary = await host.runtime.status(runId);
  // A deadline poll: the run is driven elsewhere (the console's approval, another process).
  while (summary.status === 'running' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    summary = await host.runtime.status(runId);
  }
  return settle(host, summary);
}

/**
 * `host.drive`, waiting at most `host.waitMs` for the run to stop: after that, the run's current
 * summary (`running`), while it goes on being driven.
 */
async function driveWithin(
  host: FlowCallHost,
  runId: string | null,
  call: AcceptingCall,
): Promise<RunSummary> {
  const seen: { accepted: RunSummary | null } = { accepted: null };
  const final = host.drive(runId, (onAccepted) =>
    call((summary) => {
      seen.accepted = summary;
      onAccepted(summary);
    }),
  );
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), host.waitMs ?? DEFAULT_CALL_WAIT_MS);
  });
  const first = await Promise.race([final, timeout]).finally(() => clearTimeout(timer));
  if (first !== null) return first;
  // Nobody awaits the drive any more: its failure is logged (the run's status says what happened).
  void final.catch((error: unknown) =>
    host.logger?.error('MCP SERVE driving a run failed after its call answered', { error }),
  );
  const accepted = seen.accepted;
  if (accepted === null) return final;
  return host.runtime.status(accepted.runId);
}
