import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { RunMessageSchema as RunMessageRecord } from '../records/run-message.js';
import { idempotent } from './runs-routes.js';
import { assertOpen, requireRole, visibleRun, type AppEnv, type ServerDeps } from './context.js';
import { IdempotencyHeader, RunIdParam, errors, json } from './schemas.js';

/** The body of `POST /v1/runs/{id}/messages` (docs/api.md, "Steering"). */
export const SteerSchema = z
  .strictObject({
    text: z.string().openapi({
      description: 'What the person says to the run (not empty, at most 4000 characters).',
      example: 'use the other card, the one ending 4242',
    }),
  })
  .openapi('RunMessageRequest');

/** A steering message as kept (the record of src/records/run-message.ts). */
export const RunMessageSchema = RunMessageRecord.openapi('RunMessage');

const messageRoute = createRoute({
  method: 'post',
  path: '/v1/runs/{id}/messages',
  tags: ['runs'],
  summary: "Add a person's words to a running or suspended run (steering)",
  description:
    'The message is kept at once and read by the run at the start of its next model round, where the model ' +
    "gets it as the user's words (`run.message` in the trace); a suspended run reads it once it goes on. " +
    '409 RUN_ENDED for a run that has ended, 413 MESSAGE_TOO_LONG over 4000 characters, 429 ' +
    'TOO_MANY_MESSAGES while 20 messages wait unread; nothing is kept then.',
  middleware: [requireRole('operator')] as const,
  request: {
    params: RunIdParam,
    headers: IdempotencyHeader,
    body: { required: true, content: { 'application/json': { schema: SteerSchema } } },
  },
  responses: {
    201: json(RunMessageSchema, 'The message was kept; the run reads it at its next round.'),
    ...errors(400, 401, 403, 404),
    ...described(409, 'RUN_ENDED: the run has ended and takes no more messages (nothing kept).'),
    ...described(413, 'MESSAGE_TOO_LONG: over 4000 characters; PAYLOAD_TOO_LARGE: a body over the limit.'),
    ...described(429, 'TOO_MANY_MESSAGES: 20 messages already wait unread for the run (nothing kept).'),
  },
});

/** The standard error response of `status`, described for this route. */
function described(status: 409 | 413 | 429, description: string) {
  const standard = errors(status)[status] as object;
  return { [status]: { ...standard, description } };
}

/** Registers `POST /v1/runs/{id}/messages` (operator): the runtime's `say`, answered once the message is kept. */
export function registerMessageRoute(app: OpenAPIHono<AppEnv>, deps: ServerDeps): void {
  app.openapi(messageRoute, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const principal = c.get('principal');
    const produce = async () => {
      assertOpen(deps, c);
      await visibleRun(deps, principal, id);
      return { status: 201, body: await deps.runtime.say(id, body.text, { who: principal.name }) };
    };
    return c.json(await idempotent(deps, c, body, produce), 201);
  });
}
