import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { RunSummary } from '../records/summary.js';
import type { ThreadView } from '../runtime/threads.js';
import { assertOpen, requireRole, type AppEnv, type ServerDeps } from './context.js';
import { ApiError } from './errors.js';
import { chooseFlow, idempotent, runModel, type StartBody } from './runs-routes.js';
import {
  IdempotencyHeader,
  PendingSchema,
  RunSummarySchema,
  StartRunSchema,
  errors,
  json,
} from './schemas.js';

/** `{threadId}` in a path: 1–128 letters, digits or `. _ : -`. */
export const ThreadIdParam = z.object({
  threadId: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,128}$/)
    .openapi({ param: { name: 'threadId', in: 'path' }, example: 'T1' }),
});

const ThreadMessageSchema = z
  .object({
    role: z.enum(['user', 'assistant']),
    kind: z.enum(['input', 'answer', 'decision', 'question', 'approval', 'reply', 'failure']),
    text: z.string(),
    runId: z.string(),
    at: z.string().openapi({ description: 'When it was committed (ISO 8601).' }),
    pending: PendingSchema.optional().openapi({
      description: 'For `approval`: the pending write, as the run summary shows it.',
    }),
  })
  .openapi('ThreadMessage');

const ThreadSchema = z
  .object({
    threadId: z.string(),
    tenant: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    state: z.enum(['idle', 'waiting', 'busy']).openapi({
      description:
        '`idle`: a message starts a run; `waiting`: the last run asks a question and a message answers it; `busy`: a message is refused (409 THREAD_BUSY).',
    }),
    messages: z.array(ThreadMessageSchema),
    runs: z.array(RunSummarySchema),
  })
  .openapi('Thread');

const ThreadListSchema = z
  .object({
    threads: z.array(
      z.object({
        threadId: z.string(),
        createdAt: z.string(),
        updatedAt: z.string(),
        runs: z.number().int(),
        lastRunId: z.string().nullable(),
      }),
    ),
    next: z.string().nullable().openapi({ description: 'Pass as `after` for the next page; null: no more.' }),
  })
  .openapi('ThreadList');

const ListThreadsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  after: z.string().optional().openapi({ description: 'The `next` of the previous page.' }),
});

const postMessage = createRoute({
  method: 'post',
  path: '/v1/threads/{threadId}/messages',
  tags: ['threads'],
  summary: "Send a message to a thread: a new run, or the answer to its last run's question",
  middleware: [requireRole('operator')] as const,
  request: {
    params: ThreadIdParam,
    headers: IdempotencyHeader,
    body: { required: true, content: { 'application/json': { schema: StartRunSchema } } },
  },
  responses: {
    201: json(RunSummarySchema, 'The message was accepted: the summary of the run it started or answered.'),
    ...errors(400, 401, 403, 404, 409, 413),
  },
});

const getThread = createRoute({
  method: 'get',
  path: '/v1/threads/{threadId}',
  tags: ['threads'],
  summary: 'A thread: its messages (user and assistant) and its runs',
  request: { params: ThreadIdParam },
  responses: { 200: json(ThreadSchema, 'The thread.'), ...errors(401, 404) },
});

const listThreads = createRoute({
  method: 'get',
  path: '/v1/threads',
  tags: ['threads'],
  summary: "The token's tenant's threads, most recently updated first, paged",
  request: { query: ListThreadsQuery },
  responses: { 200: json(ThreadListSchema, 'A page of threads.'), ...errors(400, 401) },
});

/** Registers the thread routes of docs/threads.md (the chat stream lives in chat-route.ts). */
export function registerThreadRoutes(app: OpenAPIHono<AppEnv>, deps: ServerDeps): void {
  app.openapi(postMessage, async (c) => {
    const { threadId } = c.req.valid('param');
    const body = c.req.valid('json');
    const summary = await idempotent(deps, c, body, async () => ({
      status: 201,
      body: await sendMessage(deps, c, threadId, body),
    }));
    c.header('Location', `/v1/runs/${summary.runId}`);
    return c.json(summary, 201);
  });

  app.openapi(getThread, async (c) => {
    const { threadId } = c.req.valid('param');
    return c.json(await visibleThread(deps, c, threadId), 200);
  });

  app.openapi(listThreads, async (c) => {
    const { limit, after } = c.req.valid('query');
    const tenant = c.get('principal').tenant;
    const page = await deps.runtime.threads({
      tenant,
      limit,
      ...(after ? { after: decodeCursor(after) } : {}),
    });
    const last = page.at(-1);
    const next = page.length === limit && last ? encodeCursor(last) : null;
    return c.json({ threads: page, next }, 200);
  });
}

/** The thread of the token's tenant, or 404 THREAD_NOT_FOUND. */
export async function visibleThread(
  deps: ServerDeps,
  c: Context<AppEnv>,
  threadId: string,
): Promise<ThreadView> {
  const view = await deps.runtime.thread(threadId, { tenant: c.get('principal').tenant });
  if (!view) throw new ApiError(404, 'THREAD_NOT_FOUND', `unknown thread ${threadId}`);
  return view;
}

/**
 * A message to a thread from a start body: the run is started (or the thread's waiting question
 * answered) in the background; answers once it is persisted. One message per thread at a time here;
 * the store's compare-and-set refuses a race across processes (409 THREAD_BUSY).
 */
export async function sendMessage(
  deps: ServerDeps,
  c: Context<AppEnv>,
  threadId: string,
  body: StartBody,
): Promise<RunSummary> {
  assertOpen(deps, c);
  const principal = c.get('principal');
  const { loaded, trusted } = await chooseFlow(deps, principal, body);
  const input = typeof body.input === 'string' ? { text: body.input } : (body.input ?? {});
  const model = runModel(deps, body.model, loaded, trusted);
  const lock = `thread\u0000${principal.tenant ?? ''}\u0000${threadId}`;
  return deps.locks.with(lock, () =>
    deps.background.accept((onAccepted) =>
      deps.runtime.start(loaded, {
        input,
        tenant: principal.tenant,
        thread: threadId,
        who: principal.name,
        onAccepted,
        ...(model !== undefined ? { model } : {}),
      }),
    ),
  );
}

function encodeCursor(t: { updatedAt: string; threadId: string }): string {
  return Buffer.from(JSON.stringify([t.updatedAt, t.threadId])).toString('base64url');
}

function decodeCursor(cursor: string): { updatedAt: string; threadId: string } {
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    // Not JSON: refused below like any other value that is not a cursor.
  }
  if (Array.isArray(parsed) && typeof parsed[0] === 'string' && typeof parsed[1] === 'string')
    return { updatedAt: parsed[0], threadId: parsed[1] };
  throw new ApiError(400, 'BAD_REQUEST', 'after: not a cursor this server gave out');
}
