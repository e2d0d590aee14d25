import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { assertOpen, assertRole, type AppEnv, type ServerDeps } from './context.js';
import { ApiError } from './errors.js';
import { vetRequestFlow } from './request-policy.js';
import { describeFlow } from '../flow/describe.js';
import { ErrorSchema, FlowDetailSchema, FlowInfoSchema, errors, json } from './schemas.js';

const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

const listFlows = createRoute({
  method: 'get',
  path: '/v1/flows',
  tags: ['flows'],
  summary: 'The registered flows',
  responses: {
    200: json(z.array(FlowInfoSchema), 'Registered flows by id (the latest registration of each id).'),
    ...errors(401),
  },
});

const FlowIdParam = z.object({
  flowId: z
    .string()
    .min(1)
    .openapi({ param: { name: 'flowId', in: 'path' }, example: 'site-builder' }),
});

const getFlow = createRoute({
  method: 'get',
  path: '/v1/flows/{flowId}',
  tags: ['flows'],
  summary: "A registered flow's interface: its input schema and each node's outputs with their schemas",
  request: { params: FlowIdParam },
  responses: {
    200: json(
      FlowDetailSchema,
      'The flow the caller starts by this id (its own tenant’s, else the shared one).',
    ),
    ...errors(401, 404),
  },
});

const FlowBody = z.record(z.string(), z.unknown()).openapi('FlowDefinition', {
  description: 'A flow (docs/flows.md; JSON Schema in schema/flow.schema.json of the package).',
});

const RegisteredSchema = z
  .object({ flowId: z.string(), version: z.union([z.number().int(), z.string()]) })
  .openapi('RegisteredFlow');

/** Registers `GET /v1/flows` and `POST /v1/flows` (docs/api.md). */
export function registerFlowRoutes(app: OpenAPIHono<AppEnv>, deps: ServerDeps): void {
  app.openapi(listFlows, (c) => {
    const principal = c.get('principal');
    const list = deps.flows.list(principal.tenant);
    // Server paths are for the instance's admins; others see ids, versions and descriptions.
    const instanceAdmin = principal.role === 'admin' && principal.tenant === null;
    return c.json(instanceAdmin ? list : list.map(({ path: _path, ...info }) => info), 200);
  });

  app.openapi(getFlow, (c) => {
    const principal = c.get('principal');
    const { flowId } = c.req.valid('param');
    const entry = deps.flows.entry(flowId, principal.tenant);
    if (!entry)
      throw new ApiError(404, 'FLOW_NOT_FOUND', `unknown flow id ${flowId} (GET /v1/flows lists them)`);
    const instanceAdmin = principal.role === 'admin' && principal.tenant === null;
    const { path: _path, ...info } = entry.info;
    return c.json({ ...(instanceAdmin ? entry.info : info), ...describeFlow(entry.loaded.flow) }, 200);
  });

  // Registered by hand (and documented below) so the raw text reaches loadFlowText, which reports
  // problems with line numbers for YAML and JSON alike.
  app.post('/v1/flows', async (c) => {
    assertOpen(deps, c);
    assertRole(c.get('principal'), 'admin');
    const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (type !== 'application/json' && !YAML_TYPES.includes(type)) {
      throw new ApiError(400, 'BAD_REQUEST', 'send the flow as application/json or application/yaml');
    }
    const principal = c.get('principal');
    const info = await deps.flows.registerText(
      await c.req.text(),
      type === 'application/json' ? 'upload.json' : 'upload.yaml',
      principal.tenant,
      (loaded) => vetRequestFlow(loaded.flow, deps.policy),
    );
    deps.logger.info('FLOWS registered', {
      flowId: info.flowId,
      ...(info.tenant !== undefined ? { tenant: info.tenant } : {}),
      version: info.version,
      by: c.get('principal').name,
    });
    return c.json({ flowId: info.flowId, version: info.version }, 201);
  });
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/v1/flows',
    tags: ['flows'],
    summary:
      "Register a flow (admin); it replaces the same tenant's flow with the same id (a tenant's admin registers for that tenant, an admin without tenant a shared flow); each tenant may hold `--max-flows` uploaded flows",
    description:
      'The body is the flow as JSON, or YAML with `Content-Type: application/yaml`. It is validated like ' +
      "`agent-runtime validate` (without connecting to its MCP servers); relative paths resolve against the server's `--flows DIR`. " +
      'Its stdio MCP servers must use commands given with `--allow-stdio`, its HTTP MCP servers hosts given with `--allow-mcp-host`; it may not declare `providers`, and a `scripted:` model must lie in `--scripted-models DIR`.',
    request: {
      body: {
        required: true,
        content: { 'application/json': { schema: FlowBody }, 'application/yaml': { schema: z.string() } },
      },
    },
    responses: {
      201: json(RegisteredSchema, 'The flow was registered.'),
      ...errors(400, 401, 403, 413, 503),
      409: json(
        ErrorSchema,
        'FLOW_LIMIT: the tenant already holds `--max-flows` uploaded flows, or would hold more than `--max-flow-bytes` of them (registering an id it holds replaces that flow).',
      ),
    },
  });
}
