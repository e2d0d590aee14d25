import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { RunSummary } from '../records/summary.js';
import { assertOpen, requireRole, visibleRun, type AppEnv, type ServerDeps } from './context.js';
import { ApiError } from './errors.js';
import { claimStream, nodeResponse } from './events.js';
import { errors } from './schemas.js';
import { sendMessage, ThreadIdParam } from './threads-routes.js';
import { pumpChat } from './chat-stream.js';

/** What `useChat`'s default transport sends, plus our `flowId` (its `body` option). */
const ChatRequestSchema = z
  .looseObject({
    id: z.string().optional().openapi({ description: "useChat's chat id (the thread is the path's)." }),
    messages: z.array(z.looseObject({ role: z.string(), parts: z.array(z.looseObject({})).optional() })),
    trigger: z.string().optional(),
    messageId: z.string().optional(),
    flowId: z.string().min(1).optional(),
    flow: z.record(z.string(), z.unknown()).optional(),
    model: z.string().min(1).optional(),
  })
  .openapi('ChatRequest');

const chat = createRoute({
  method: 'post',
  path: '/v1/threads/{threadId}/chat',
  tags: ['threads'],
  summary: "Chat with a thread the way the AI SDK's useChat does; answers the UI message stream",
  middleware: [requireRole('operator')] as const,
  request: {
    params: ThreadIdParam,
    body: { required: true, content: { 'application/json': { schema: ChatRequestSchema } } },
  },
  responses: {
    200: {
      description:
        'The AI SDK UI message stream (SSE, `x-vercel-ai-ui-message-stream: v1`) until the run suspends or ends.',
      content: { 'text/event-stream': { schema: z.string() } },
    },
    ...errors(400, 401, 403, 404, 409, 413, 429),
  },
});

type ChatRequest = z.infer<typeof ChatRequestSchema>;

/** What a request continues: a run and the seq after which its events are this response's. */
interface Continued {
  summary: RunSummary;
  after: number;
  approved: { id: string; tool: string } | null;
}

/** Registers `POST /v1/threads/{threadId}/chat` (docs/threads.md#usechat). */
export function registerChatRoute(app: OpenAPIHono<AppEnv>, deps: ServerDeps): void {
  app.openapi(chat, async (c) => {
    const { threadId } = c.req.valid('param');
    const body = c.req.valid('json');
    const continued = await continueThread(deps, c, threadId, body);
    const release = claimStream(deps, c.get('principal'));
    c.header('x-vercel-ai-ui-message-stream', 'v1');
    c.header('X-Accel-Buffering', 'no');
    const start = {
      runId: continued.summary.runId,
      threadId,
      after: continued.after,
      approved: continued.approved,
    };
    const cut = () => nodeResponse(c.env)?.destroy();
    return streamSSE(
      c,
      (stream) => pumpChat(deps, stream, start, cut).finally(release),
      (error) => {
        deps.logger.error('HTTP chat stream failed', { threadId, error });
        return Promise.resolve();
      },
    );
  });
}

/**
 * The request's effect on the thread: an approval response in the last assistant message decides the
 * thread's pending write (the same checks as `/approval`, the pending id as `expect`: single use);
 * otherwise the last user message's text is a steering message to the thread's last run while it is
 * running, else a message to the thread (a new run or an answer).
 */
async function continueThread(
  deps: ServerDeps,
  c: Context<AppEnv>,
  threadId: string,
  body: ChatRequest,
): Promise<Continued> {
  assertOpen(deps, c);
  const principal = c.get('principal');
  const view = await deps.runtime.thread(threadId, { tenant: principal.tenant });
  const last = view?.runs.at(-1) ?? null;
  const after = last ? await lastSeq(deps, last.runId) : 0;
  const response = approvalResponse(body.messages);
  if (response) {
    const pending = last?.suspension?.kind === 'APPROVAL' ? last.suspension.pending : null;
    if (!last || !pending || !('tool' in pending) || pending.id !== response.approvalId)
      throw new ApiError(
        409,
        'CONFLICT',
        `thread ${threadId} does not wait for approval ${response.approvalId} (nothing changed)`,
      );
    const options = {
      who: principal.name,
      role: principal.role,
      comment: response.reason ?? null,
      expect: response.approvalId,
    };
    const summary = await deps.locks.with(last.runId, () =>
      deps.background.accept((onAccepted) =>
        response.approved
          ? deps.runtime.approve(last.runId, { ...options, onAccepted })
          : deps.runtime.reject(last.runId, { ...options, onAccepted }),
      ),
    );
    return { summary, after, approved: { id: response.approvalId, tool: pending.tool } };
  }
  const text = lastUserText(body.messages);
  if (text === null)
    throw new ApiError(
      400,
      'BAD_REQUEST',
      'the last message is neither a user message with text nor an approval response',
    );
  if (last?.status === 'running') {
    // Steering (docs/threads.md#usechat): the words reach the running run at its next round, and
    // this response streams that run on from where it stands.
    await visibleRun(deps, principal, last.runId);
    await deps.runtime.say(last.runId, text, { who: principal.name });
    return { summary: last, after, approved: null };
  }
  const start = {
    input: text,
    ...(body.flowId !== undefined ? { flowId: body.flowId } : {}),
    ...(body.flow !== undefined ? { flow: body.flow } : {}),
    ...(body.model !== undefined ? { model: body.model } : {}),
  };
  const summary = await sendMessage(deps, c, threadId, start);
  return { summary, after: summary.runId === last?.runId ? after : 0, approved: null };
}

async function lastSeq(deps: ServerDeps, runId: string): Promise<number> {
  return (await (await deps.runtime.db()).getRun(runId))?.lastSeq ?? 0;
}

/** The approval response of the last message when it is an assistant message (`addToolApprovalResponse`). */
export function approvalResponse(
  messages: readonly Record<string, unknown>[],
): { approvalId: string; approved: boolean; reason?: string } | null {
  const last = messages.at(-1);
  if (!last || last.role !== 'assistant' || !Array.isArray(last.parts)) return null;
  for (const part of (last.parts as Record<string, unknown>[]).toReversed()) {
    const approval = part.approval as Record<string, unknown> | undefined;
    if (part.state !== 'approval-responded' || !approval) continue;
    if (typeof approval.id !== 'string' || typeof approval.approved !== 'boolean') continue;
    return {
      approvalId: approval.id,
      approved: approval.approved,
      ...(typeof approval.reason === 'string' ? { reason: approval.reason } : {}),
    };
  }
  return null;
}

/** The text of the last message when it is a user message (its text parts joined), else null. */
export function lastUserText(messages: readonly Record<string, unknown>[]): string | null {
  const last = messages.at(-1);
  if (!last || last.role !== 'user' || !Array.isArray(last.parts)) return null;
  const text = (last.parts as Record<string, unknown>[])
    .filter((p) => p.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text as string)
    .join('\n')
    .trim();
  return text === '' ? null : text;
}
