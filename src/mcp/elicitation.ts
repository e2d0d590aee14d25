import type { Client } from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../domain/flow.js';
import type { Logger } from '../log/logger.js';
import type { InputRound } from '../records/run-state.js';

/**
 * Elicitation (docs/mcp.md, "Elicitation"): a server asks the person something during a tool call.
 * Unless the server's entry holds questions open for a while (`elicitationHoldSeconds`, answered by a
 * person from any process meanwhile), the call the question came up in is cancelled, the run suspends
 * with the question, and once the person answered, the same call is sent again and the stored answer
 * is given to the server when it asks the same question.
 */

/** A server's `elicitation/create`, as the run's pending item carries it. */
export interface McpElicitation {
  readonly mode: 'form' | 'url';
  readonly message: string;
  /** Form mode: the flat JSON Schema of the requested object. */
  readonly requestedSchema?: Record<string, unknown>;
  /** URL mode: the link the person opens. */
  readonly url?: string;
  readonly elicitationId?: string;
  /** Set when the question came in an `input_required` result (2026-07-28): the round to retry with. */
  readonly round?: InputRound;
}

/** The person's answer, as sent back to the server. */
export interface McpElicitAnswer {
  readonly action: 'accept' | 'decline' | 'cancel';
  readonly content?: Record<string, unknown>;
}

/**
 * Answers a question of the server for one call: the stored answer, or null when the person has to be
 * asked (the call is then cancelled and the run suspends).
 */
export type ElicitHandler = (
  request: McpElicitation,
  options?: {
    /** Also an answer given already: an `input_required` round is retried with all its answers. */
    readonly reuse?: boolean;
  },
) => McpElicitAnswer | null;

/**
 * Holds a question open for up to `holdMs` while a person may answer it from any process: the answer,
 * or null when none came (docs/mcp.md, "Holding the request open").
 */
export type HoldHandler = (request: McpElicitation, holdMs: number) => Promise<McpElicitAnswer | null>;

/** One call in flight that may be asked something. */
export interface ElicitingCall {
  readonly handler: ElicitHandler;
  /** Holds a question nobody answered yet open (absent: the call is cancelled at once). */
  readonly hold?: HoldHandler;
  /** Cancels the call (its `tools/call`) because the person has to be asked. */
  readonly stop: (request: McpElicitation) => void;
}

/** The request's params as the runtime keeps them (unknown keys dropped). */
export function elicitationOf(params: Record<string, unknown>): McpElicitation {
  const url = typeof params.url === 'string' ? params.url : undefined;
  const mode = params.mode === 'url' || (params.mode === undefined && url !== undefined) ? 'url' : 'form';
  const schema = params.requestedSchema;
  return {
    mode,
    message: typeof params.message === 'string' ? params.message : '',
    ...(mode === 'form' && schema && typeof schema === 'object'
      ? { requestedSchema: schema as Record<string, unknown> }
      : {}),
    ...(url === undefined ? {} : { url }),
    ...(typeof params.elicitationId === 'string' ? { elicitationId: params.elicitationId } : {}),
  };
}

/**
 * The accepted content with every property the person left out that has a `default` in the requested
 * schema filled with it (what a client does with defaults).
 */
export function withSchemaDefaults(
  schema: Record<string, unknown> | undefined,
  content: Record<string, unknown>,
): Record<string, unknown> {
  const properties = schema?.properties;
  if (!properties || typeof properties !== 'object') return { ...content };
  const filled: Record<string, unknown> = { ...content };
  for (const [key, property] of Object.entries(properties as Record<string, unknown>)) {
    if (Object.hasOwn(filled, key) || !property || typeof property !== 'object') continue;
    if (Object.hasOwn(property, 'default')) filled[key] = (property as { default: unknown }).default;
  }
  return filled;
}

/**
 * Whether `elicitation: defaults` answers this question without a person: a form whose schema gives a
 * default to every required field (a form with no required field qualifies when it has defaults).
 */
export function answeredByDefaults(elicitation: McpElicitation): boolean {
  if (elicitation.mode !== 'form') return false;
  const schema = elicitation.requestedSchema;
  const properties = schema?.properties;
  if (!properties || typeof properties !== 'object') return false;
  const fields = properties as Record<string, unknown>;
  const hasDefault = (key: string) => {
    const field = fields[key];
    return typeof field === 'object' && field !== null && Object.hasOwn(field, 'default');
  };
  const required = Array.isArray(schema.required) ? schema.required.filter((k) => typeof k === 'string') : [];
  if (!required.every(hasDefault)) return false;
  return Object.keys(fields).some(hasDefault);
}

/**
 * Registers the connection's `elicitation/create` handler. A question goes to the one call in flight
 * that can be asked (`calls()`); with none, or with several (the connection is shared and the request
 * does not say which call it belongs to), it is answered `cancel`.
 */
export function serveElicitation(
  client: Client,
  serverId: string,
  calls: () => readonly ElicitingCall[],
  logger: Logger,
  config: Pick<McpServerConfig, 'elicitation' | 'elicitationHoldSeconds'>,
): void {
  const policy = config.elicitation ?? 'ask';
  const holdMs = (config.elicitationHoldSeconds ?? 0) * 1000;
  client.setRequestHandler('elicitation/create', async (request) => {
    const elicitation = elicitationOf(request.params);
    if (policy === 'defaults' && answeredByDefaults(elicitation)) {
      logger.info('MCP elicitation accepted with its defaults', {
        server: serverId,
        message: elicitation.message,
      });
      const content = withSchemaDefaults(elicitation.requestedSchema, {});
      return { action: 'accept' as const, content: content as never };
    }
    const candidates = calls();
    const call = candidates.length === 1 ? candidates[0] : undefined;
    if (!call) {
      logger.warn('MCP elicitation answered cancel', {
        server: serverId,
        why: candidates.length === 0 ? 'no call in flight can be asked' : 'several calls in flight',
      });
      return { action: 'cancel' as const };
    }
    const stored =
      call.handler(elicitation) ?? (holdMs > 0 && call.hold ? await call.hold(elicitation, holdMs) : null);
    if (stored === null) {
      call.stop(elicitation);
      return { action: 'cancel' as const };
    }
    if (stored.action !== 'accept') return { action: stored.action };
    const content =
      elicitation.mode === 'form'
        ? withSchemaDefaults(elicitation.requestedSchema, stored.content ?? {})
        : undefined;
    return { action: 'accept' as const, ...(content ? { content: content as never } : {}) };
  });
}

/** A request's result, or the question it was cancelled for. */
export type Askable<T> = { readonly result: T; readonly asked?: never } | { readonly asked: McpElicitation };

/**
 * Runs one request that the server may ask the person about: with a handler, the call is registered
 * in `calls` while it runs, and when the person has to be asked it is cancelled and resolves to the
 * question instead of its result.
 */
export async function askable<T>(
  calls: Set<ElicitingCall>,
  handler: ElicitHandler | undefined,
  signal: AbortSignal | undefined,
  run: (signal: AbortSignal | undefined) => Promise<T>,
  hold?: HoldHandler,
): Promise<Askable<T>> {
  if (!handler) return { result: await run(signal) };
  const controller = new AbortController();
  const asked: { request?: McpElicitation } = {};
  const call: ElicitingCall = {
    handler,
    ...(hold ? { hold } : {}),
    stop: (request) => {
      asked.request = request;
      controller.abort(
        new Error('the server asked the person a question; the call is sent again once answered'),
      );
    },
  };
  calls.add(call);
  try {
    const result = await run(signal ? AbortSignal.any([signal, controller.signal]) : controller.signal);
    // Answered before the cancellation arrived: the server's result is what it did without the answer.
    return asked.request ? { asked: asked.request } : { result };
  } catch (error) {
    if (asked.request && !signal?.aborted) return { asked: asked.request };
    throw error;
  } finally {
    calls.delete(call);
  }
}
