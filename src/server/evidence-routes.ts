import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { visibleRun, type AppEnv, type ServerDeps } from './context.js';
import { ApiError } from './errors.js';
import { errors, json, RunIdParam } from './schemas.js';

/** An evidence record: a tool call that really executed (SUCCESS or FAILED), with its full payload. */
export const EvidenceSchema = z
  .object({
    id: z
      .string()
      .openapi({ example: 'ev_1', description: '`ev_1`, `ev_2`, … per run, in the order calls executed.' }),
    tool: z.string().openapi({ example: 'space_list' }),
    args: z.record(z.string(), z.unknown()),
    fingerprint: z.string().openapi({ description: 'sha256 of the tool and its canonical arguments.' }),
    outcome: z.enum(['SUCCESS', 'FAILED']),
    errorCode: z.string().nullable(),
    payload: z.unknown().openapi({
      description:
        "What the call returned (the MCP result's structuredContent, else its text parsed as JSON, else the text), never cut.",
    }),
    ts: z.string().openapi({ description: 'When the call executed (ISO 8601, UTC).' }),
    nodeId: z.string(),
    callId: z.string(),
    lookBack: z.boolean().optional().openapi({ description: 'True for a runtime look-back query.' }),
    confirmsFingerprint: z.string().optional().openapi({
      description: 'For a look-back that confirmed an interrupted write: that write’s fingerprint.',
    }),
  })
  .openapi('Evidence');

const EvidenceParams = RunIdParam.extend({
  evidenceId: z
    .string()
    .min(1)
    .openapi({ param: { name: 'evidenceId', in: 'path' }, example: 'ev_1' }),
});

const listEvidence = createRoute({
  method: 'get',
  path: '/v1/runs/{id}/evidence',
  tags: ['runs'],
  summary: "The run's evidence records, in id order, with their payloads",
  request: { params: RunIdParam },
  responses: {
    200: json(z.array(EvidenceSchema), 'Evidence records (empty when none).'),
    ...errors(401, 404),
  },
});

const getEvidence = createRoute({
  method: 'get',
  path: '/v1/runs/{id}/evidence/{evidenceId}',
  tags: ['runs'],
  summary: 'One evidence record: tool, arguments, time, outcome and full payload',
  request: { params: EvidenceParams },
  responses: { 200: json(EvidenceSchema, 'The evidence record.'), ...errors(401, 404) },
});

/**
 * Registers `GET /v1/runs/{id}/evidence` and `GET /v1/runs/{id}/evidence/{evidenceId}`: readable by
 * every role (viewer and up), scoped to the token's tenant like the run itself (another tenant's run is 404).
 */
export function registerEvidenceRoutes(app: OpenAPIHono<AppEnv>, deps: ServerDeps): void {
  app.openapi(listEvidence, async (c) => {
    const { id } = c.req.valid('param');
    await visibleRun(deps, c.get('principal'), id);
    return c.json(await deps.runtime.evidence(id), 200);
  });

  app.openapi(getEvidence, async (c) => {
    const { id, evidenceId } = c.req.valid('param');
    await visibleRun(deps, c.get('principal'), id);
    const record = await deps.runtime.evidenceRecord(id, evidenceId);
    if (!record) {
      throw new ApiError(404, 'EVIDENCE_NOT_FOUND', `run ${id} has no evidence ${evidenceId}`);
    }
    return c.json(record, 200);
  });
}
