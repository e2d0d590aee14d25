import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { completeArgument } from '../mcp/server-content.js';
import { assertOpen, requireRole, type AppEnv, type ServerDeps } from './context.js';
import { withFlowServer } from './flow-server.js';
import { ErrorSchema, errors, json } from './schemas.js';

/** How long a completion may take, connecting included (ms). */
const COMPLETE_TIMEOUT_MS = 10_000;

const Params = z.object({
  flowId: z
    .string()
    .min(1)
    .openapi({ param: { name: 'flowId', in: 'path' }, example: 'site-builder' }),
  server: z
    .string()
    .min(1)
    .openapi({ param: { name: 'server', in: 'path' }, example: 'everything' }),
});

export const CompleteRequestSchema = z
  .strictObject({
    prompt: z
      .string()
      .min(1)
      .max(1000)
      .optional()
      .openapi({ description: 'The prompt whose argument is completed' }),
    template: z
      .string()
      .min(1)
      .max(4000)
      .optional()
      .openapi({ description: 'The resource template (its URI template) whose variable is completed' }),
    argument: z
      .string()
      .min(1)
      .max(1000)
      .openapi({ description: 'The argument (or template variable) to complete' }),
    value: z.string().max(10_000).default('').openapi({ description: 'What the person typed so far' }),
    context: z
      .record(z.string().max(1000), z.string().max(10_000))
      .refine((c) => Object.keys(c).length <= 50, 'at most 50 context arguments')
      .optional()
      .openapi({ description: 'The other arguments already filled in, by name' }),
  })
  .refine((b) => (b.prompt === undefined) !== (b.template === undefined), {
    message: 'give either prompt or template',
  })
  .openapi('CompleteRequest');

export const CompletionSchema = z
  .object({
    values: z.array(z.string()).openapi({ description: 'At most 100 suggestions, best first' }),
    total: z.number().int().optional().openapi({ description: 'How many the server has in all, if it said' }),
    hasMore: z.boolean().optional().openapi({ description: 'True when the server has more than it sent' }),
  })
  .openapi('Completion');

const completeRoute = createRoute({
  method: 'post',
  path: '/v1/flows/{flowId}/mcp/{server}/complete',
  tags: ['flows'],
  summary: "Suggestions for a prompt's argument or a resource template's variable from a flow's MCP server",
  description:
    "MCP `completion/complete` on the flow's server (the caller's tenant's flow, else the shared one), for " +
    'a person filling in a prompt or a resource template. A server without the completions capability ' +
    'suggests nothing (200, no values). 502 MCP_UNAVAILABLE when the server cannot be reached or refuses.',
  middleware: [requireRole('operator')] as const,
  request: {
    params: Params,
    body: { required: true, content: { 'application/json': { schema: CompleteRequestSchema } } },
  },
  responses: {
    200: json(CompletionSchema, "The server's suggestions."),
    ...errors(400, 401, 403, 404, 413, 503),
    502: json(ErrorSchema, 'MCP_UNAVAILABLE: the MCP server could not be reached or refused the request.'),
  },
});

/** Registers `POST /v1/flows/{flowId}/mcp/{server}/complete` (operator, docs/api.md). */
export function registerCompleteRoute(app: OpenAPIHono<AppEnv>, deps: ServerDeps): void {
  app.openapi(completeRoute, async (c) => {
    assertOpen(deps, c);
    const { flowId, server } = c.req.valid('param');
    const body = c.req.valid('json');
    const completion = await withFlowServer(deps, c.get('principal'), flowId, server, (connection) =>
      completeArgument(
        connection,
        body.prompt !== undefined
          ? { type: 'prompt', name: body.prompt }
          : { type: 'template', uri: body.template ?? '' },
        { name: body.argument, value: body.value },
        body.context ?? {},
        { timeoutMs: COMPLETE_TIMEOUT_MS },
      ),
    );
    return c.json(completion, 200);
  });
}
