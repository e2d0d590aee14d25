import { z } from '@hono/zod-openapi';
import { PendingItemSchema } from '../records/pending.js';
import { RunSummarySchema as RecordSummarySchema } from '../records/summary.js';
import { API_ERROR_CODES } from './errors.js';

/**
 * The request and response schemas of the HTTP API (docs/api.md). The same zod schemas validate the
 * requests and generate `/v1/openapi.json`, so the document cannot drift from what the server checks.
 */

/** `{error: {code, message}}`, the body of every non-2xx answer. */
export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({
        example: 'CONFLICT',
        description: `One of ${API_ERROR_CODES.join(', ')} (docs/api.md "Errors").`,
      }),
      message: z.string(),
      problems: z
        .array(z.string())
        .optional()
        .openapi({ description: 'Each problem of an invalid flow or input, one line each.' }),
    }),
  })
  .openapi('Error');

/**
 * The pending item of a suspended run (declared once, in src/records/pending.ts). `meta` makes the
 * copy that carries the OpenAPI name: the record's schema may have been built before `@hono/zod-openapi`
 * added `.openapi` to zod.
 */
export const PendingSchema = PendingItemSchema.meta({
  description: 'A gated write waiting for approval, or a question waiting for an answer.',
}).openapi('PendingItem');

/** The run summary (docs/api.md), as `runtime.status()` returns it (declared in src/records/summary.ts). */
export const RunSummarySchema = RecordSummarySchema.extend({
  suspension: z
    .object({
      kind: z.enum(['APPROVAL', 'FOLLOW_UP', 'TASK']),
      pending: PendingSchema,
      items: z
        .array(
          z.object({
            kind: z.enum(['APPROVAL', 'FOLLOW_UP', 'TASK']),
            nodeId: z.string(),
            pending: PendingSchema,
          }),
        )
        .optional()
        .describe(
          'Every item the run waits for when several parallel branches wait at once (the first is `pending`); each is answered by its id.',
        ),
    })
    .optional(),
}).openapi('RunSummary');

/** A trace event of docs/trace.md (the fields beyond the common ones depend on `type`). */
export const TraceEventSchema = z
  .looseObject({
    seq: z.number().int(),
    ts: z.string(),
    runId: z.string(),
    type: z.string().openapi({ example: 'run.suspended' }),
    nodeId: z.string().optional(),
    round: z.number().int().optional(),
  })
  .openapi('TraceEvent');

/** `POST /v1/runs`. */
export const StartRunSchema = z
  .strictObject({
    flowId: z.string().min(1).optional().openapi({ description: 'A registered flow (GET /v1/flows).' }),
    flow: z.record(z.string(), z.unknown()).optional().openapi({
      description:
        "An inline flow (admin only: a flow can start MCP server processes); relative paths resolve against the server's --flows DIR.",
    }),
    input: z
      .union([z.string(), z.record(z.string(), z.unknown())])
      .optional()
      .openapi({
        description:
          "The run input, validated against the flow's `input` schema; a string is shorthand for `{text}`. Default `{}`.",
      }),
    model: z.string().min(1).optional().openapi({
      description:
        "`<provider>:<model id>` overriding the flow's model; a relative `scripted:` path resolves against the flow's folder.",
    }),
  })
  .openapi('StartRun');

/** `POST /v1/runs/{id}/approval`. */
export const ApprovalSchema = z
  .strictObject({
    decision: z.enum(['approve', 'reject']),
    comment: z.string().optional(),
    args: z.record(z.string(), z.unknown()).optional().openapi({
      description:
        "With `approve`: edited arguments of the pending write. They go through the guards again (the changes count as the user's words); refused with 400 ARGS_REFUSED naming the check, else the approval binds to them (docs/approvals.md).",
    }),
    expect: z.string().min(1).optional().openapi({
      description: 'The pending item id this decision is for; 409 when the run waits for another.',
    }),
  })
  .openapi('Approval');

/** `POST /v1/runs/{id}/answer`. */
export const AnswerSchema = z
  .strictObject({
    text: z.string().min(1).optional().openapi({
      description:
        "The answer; required unless `action` is decline or cancel. To an MCP server's form: its fields as a JSON object.",
    }),
    action: z.enum(['accept', 'decline', 'cancel']).optional().openapi({
      description: "Only for an MCP server's question (`pending.elicitation`): default accept.",
    }),
    expect: z.string().min(1).optional().openapi({
      description: 'The pending item id this answer is for; 409 when the run waits for another.',
    }),
  })
  .refine((body) => body.text !== undefined || body.action === 'decline' || body.action === 'cancel', {
    message: 'text is required unless action is decline or cancel',
    path: ['text'],
  })
  .openapi('Answer');

/** An entry of `GET /v1/flows`. */
export const FlowInfoSchema = z
  .object({
    flowId: z.string(),
    version: z.union([z.number().int(), z.string()]),
    description: z.string().optional(),
    origin: z.enum(['dir', 'upload']),
    path: z.string().optional(),
    tenant: z.string().optional(),
    registeredAt: z.string(),
  })
  .openapi('FlowInfo');

const PublishedOutput = z
  .object({
    required: z.boolean(),
    sources: z.array(z.enum(['evidence', 'user', 'node', 'model', 'code'])),
    from: z.array(z.string()).optional(),
    description: z.string().optional(),
    schema: z.record(z.string(), z.unknown()).optional().openapi({
      description:
        "The JSON Schema the output's value satisfies (builtin_output_set rejects others with OUTPUT_SCHEMA_MISMATCH); absent: any JSON value.",
    }),
  })
  .openapi('PublishedOutput');

/** `GET /v1/flows/{flowId}`: the registration and the flow's interface (docs/api.md). */
export const FlowDetailSchema = FlowInfoSchema.extend({
  input: z
    .record(z.string(), z.unknown())
    .openapi({ description: 'JSON Schema of the run input (`POST /v1/runs` `input`).' }),
  nodes: z
    .array(z.object({ id: z.string(), outputs: z.record(z.string(), PublishedOutput) }))
    .openapi({ description: 'The nodes in file order, each with its declared outputs.' }),
  outputsSchema: z.record(z.string(), z.unknown()).openapi({
    description:
      "JSON Schema of a run summary's `outputs` (node id → output key → value), for generating types; each output's `schema` is embedded as is.",
  }),
}).openapi('FlowDetail');

/** `GET /v1/me`: the caller's token name, role and tenant. */
export const MeSchema = z
  .object({
    name: z.string(),
    role: z.enum(['viewer', 'operator', 'admin']),
    tenant: z.string().nullable(),
  })
  .openapi('Me');

export const RunIdParam = z.object({
  id: z
    .string()
    .min(1)
    // NUL and other control characters are no run id (PostgreSQL refuses NUL in text: it was a 500).
    // eslint-disable-next-line no-control-regex -- control characters are what it refuses
    .regex(/^[^\u0000-\u001f\u007f]+$/, { error: 'expected a run id (no control characters)' })
    .openapi({ param: { name: 'id', in: 'path' }, example: 'run_3f2a9c0d1b7e4a6f8c21' }),
});

export const IdempotencyHeader = z.object({
  'idempotency-key': z.string().optional().openapi({
    description:
      'Makes a retried request return the first successful response (remembered per server process, see docs/api.md).',
  }),
});

export const ListRunsQuery = z.object({
  status: z.enum(['running', 'suspended', 'completed', 'failed', 'cancelled']).optional(),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(100)
    .openapi({ description: 'At most this many runs, newest first (default 100).' }),
});

export const EventsQuery = z.object({
  after: z.coerce.number().int().min(0).optional().openapi({
    description: 'Replay events with seq above this (the `Last-Event-ID` header wins when both are given).',
  }),
});

export const EventsHeaders = z.object({
  // Like `?after=`: a whole number within the safe integer range, else 400 (not a silent replay from 0).
  'last-event-id': z
    .string()
    .refine(
      (v) => /^\d{1,16}$/.test(v) && Number.isSafeInteger(Number(v)),
      'Last-Event-ID must be an event seq',
    )
    .optional(),
});

/** The standard error responses, for the routes that can give them. */
export function errors(...statuses: (400 | 401 | 403 | 404 | 409 | 413 | 429 | 502 | 503)[]) {
  const text: Record<number, string> = {
    400: 'Bad input (body, query, flow or run input).',
    401: 'Missing or unknown bearer token.',
    403: "The token's role does not allow this.",
    404: "Unknown run (or another tenant's), flow or route.",
    409: 'The run is not waiting for this (nothing changed).',
    413: 'The request body is larger than the server accepts (1 MiB by default): PAYLOAD_TOO_LARGE.',
    429: 'Too many event streams open for this token.',
    502: "An MCP server's authorization server could not be used: AUTHORIZATION_FAILED.",
    503: 'The server is busy (large documents being parsed; see Retry-After) or shutting down.',
  };
  return Object.fromEntries(
    statuses.map((s) => [
      s,
      { description: text[s] as string, content: { 'application/json': { schema: ErrorSchema } } },
    ]),
  );
}

/** A JSON response. */
export function json<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

/** `POST /v1/runs/{id}/authorization` (docs/api.md, "Connect"). */
export const AuthorizationStartSchema = z
  .strictObject({
    expect: z.string().min(1).optional().openapi({
      description:
        'The pending item id (`suspension.pending.id`): refused with 409 when the run waits for another.',
    }),
  })
  .openapi('AuthorizationStart');

/** The answer of `POST /v1/runs/{id}/authorization`. */
export const AuthorizationStartedSchema = z
  .object({
    server: z.string().openapi({ description: 'The MCP server to authorize.' }),
    authorized: z.boolean().openapi({
      description:
        'True when the stored tokens already work: the run continues at once (`run`), no URL to open.',
    }),
    authorizationUrl: z.string().optional().openapi({
      description:
        "The authorization server's page the person opens; it comes back to GET /v1/oauth/callback.",
    }),
    expiresAt: z.string().optional().openapi({ description: 'When the authorization started here expires.' }),
    run: RunSummarySchema.optional().openapi({
      description: 'With `authorized: true`: the run as it continues.',
    }),
  })
  .openapi('AuthorizationStarted');
