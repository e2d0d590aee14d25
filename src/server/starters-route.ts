import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Flow } from '../domain/flow.js';
import { getPromptText, listServerPrompts, type ListedPrompt } from '../mcp/server-content.js';
import type { McpConnection } from '../mcp/types.js';
import { assertOpen, requireRole, type AppEnv, type ServerDeps } from './context.js';
import { ApiError } from './errors.js';
import { flowOf, withFlowServer } from './flow-server.js';
import { ErrorSchema, errors, json } from './schemas.js';

/** How long listing the starters or getting one may take, connecting included (ms). */
const STARTERS_TIMEOUT_MS = 10_000;

const flowIdParam = z
  .string()
  .min(1)
  .openapi({ param: { name: 'flowId', in: 'path' }, example: 'assistant' });

export const StarterSchema = z
  .object({
    name: z.string().openapi({ description: "The prompt's name on the server" }),
    title: z.string().optional(),
    description: z.string().optional(),
    arguments: z
      .array(
        z.object({
          name: z.string(),
          description: z.string().optional(),
          required: z.boolean().optional(),
        }),
      )
      .openapi({ description: 'What the person fills in before the starter is sent' }),
  })
  .openapi('Starter');

export const StarterRequestSchema = z
  .strictObject({
    arguments: z
      .record(z.string().max(1000), z.string().max(10_000))
      .refine((a) => Object.keys(a).length <= 50, 'at most 50 arguments')
      .optional()
      .openapi({ description: "The prompt's arguments, by name" }),
  })
  .openapi('StarterRequest');

const mcpError = json(
  ErrorSchema,
  'MCP_UNAVAILABLE: the MCP server could not be reached or refused the request.',
);

const listRoute = createRoute({
  method: 'get',
  path: '/v1/flows/{flowId}/starters',
  tags: ['flows'],
  summary: "The chat starters of a flow: its `starters` server's prompts",
  description:
    "MCP `prompts/list` of the server the flow's `starters` names (the caller's tenant's flow, else the " +
    'shared one), only the prompts `starters.prompts` names when it does, in that order. A flow without ' +
    '`starters` has none (200, empty list).',
  middleware: [requireRole('operator')] as const,
  request: { params: z.object({ flowId: flowIdParam }) },
  responses: {
    200: json(z.object({ starters: z.array(StarterSchema) }), 'The starters, in the order to show them.'),
    ...errors(401, 403, 404, 503),
    502: mcpError,
  },
});

const getRoute = createRoute({
  method: 'post',
  path: '/v1/flows/{flowId}/starters/{name}',
  tags: ['flows'],
  summary: "A chat starter's text: the prompt filled in with its arguments",
  description:
    'MCP `prompts/get` of one starter with its arguments; the text of its messages (one paragraph each, ' +
    'at most 20,000 characters) is what the console sends as the first message of a thread. 404 for a ' +
    'prompt that is not a starter of the flow; 400 naming a required argument left out.',
  middleware: [requireRole('operator')] as const,
  request: {
    params: z.object({
      flowId: flowIdParam,
      name: z
        .string()
        .min(1)
        .openapi({ param: { name: 'name', in: 'path' }, example: 'simple-prompt' }),
    }),
    body: { required: false, content: { 'application/json': { schema: StarterRequestSchema } } },
  },
  responses: {
    200: json(z.object({ text: z.string() }), "The starter's text."),
    ...errors(400, 401, 403, 404, 413, 503),
    502: mcpError,
  },
});

/** Registers `GET /v1/flows/{flowId}/starters` and `POST /v1/flows/{flowId}/starters/{name}` (docs/api.md). */
export function registerStartersRoutes(app: OpenAPIHono<AppEnv>, deps: ServerDeps): void {
  app.openapi(listRoute, async (c) => {
    assertOpen(deps, c);
    const { flowId } = c.req.valid('param');
    const principal = c.get('principal');
    const { starters } = flowOf(deps, flowId, principal).flow;
    if (!starters) return c.json({ starters: [] }, 200);
    const listed = await withFlowServer(deps, principal, flowId, starters.server, (connection) =>
      offered(connection, starters),
    );
    return c.json({ starters: listed }, 200);
  });
  app.openapi(getRoute, async (c) => {
    assertOpen(deps, c);
    const { flowId, name } = c.req.valid('param');
    const args = (c.req.valid('json') as z.infer<typeof StarterRequestSchema> | undefined)?.arguments ?? {};
    const principal = c.get('principal');
    const { starters } = flowOf(deps, flowId, principal).flow;
    if (!starters) throw new ApiError(404, 'NOT_FOUND', `flow ${flowId} has no starters`);
    const text = await withFlowServer(deps, principal, flowId, starters.server, async (connection) => {
      const prompt = (await offered(connection, starters)).find((p) => p.name === name);
      if (!prompt)
        throw new ApiError(
          404,
          'NOT_FOUND',
          `${JSON.stringify(name)} is not a starter of flow ${flowId} (GET /v1/flows/${flowId}/starters lists them)`,
        );
      const missing = prompt.arguments.filter((a) => a.required === true && !args[a.name]).map((a) => a.name);
      if (missing.length > 0)
        throw new ApiError(400, 'BAD_REQUEST', `starter ${name} needs the argument(s) ${missing.join(', ')}`);
      return getPromptText(connection, name, args, { timeoutMs: STARTERS_TIMEOUT_MS });
    });
    return c.json({ text }, 200);
  });
}

/** The server's prompts the flow offers: every one, or those `starters.prompts` names, in its order. */
async function offered(
  connection: McpConnection,
  starters: NonNullable<Flow['starters']>,
): Promise<ListedPrompt[]> {
  const prompts = await listServerPrompts(connection, { timeoutMs: STARTERS_TIMEOUT_MS });
  if (!starters.prompts) return prompts;
  return starters.prompts.flatMap((name) => prompts.filter((p) => p.name === name));
}
