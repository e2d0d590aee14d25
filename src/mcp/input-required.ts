import { randomInt } from 'node:crypto';
import {
  isInputRequiredResult,
  SdkError,
  SdkErrorCode,
  type CallToolResult,
  type Client,
  type RequestOptions,
} from '@modelcontextprotocol/client';
import type { McpCallOptions } from './types.js';
import type { McpServerConfig } from '../domain/flow.js';
import type { InputRound } from '../records/run-state.js';
import {
  answeredByDefaults,
  elicitationOf,
  withSchemaDefaults,
  type ElicitHandler,
  type McpElicitation,
} from './elicitation.js';

/**
 * Multi-round-trip requests (2026-07-28, docs/mcp.md, "Elicitation"): a `tools/call` may come back
 * `input_required`, with input requests (questions for the person, a roots listing) and an opaque
 * request state. The runtime answers them from the run's stored answers and retries the call with
 * `inputResponses` and the request state echoed unchanged; a question nobody answered yet ends the call
 * with that question and its round, which the run keeps, so the retry can come from any process.
 */

export type { InputRound };

/** Rounds one call may take before it fails (as the SDK's own driver). */
const MAX_ROUNDS = 10;

/** How the input requests of a call are answered. */
interface InputAnswering {
  /** The run's stored answers (null: the person has to be asked); without it questions are answered `cancel`. */
  readonly handler?: ElicitHandler;
  readonly config: McpServerConfig;
}

/** The call's final result, or the question (with its round) the person has to answer first. */
export type InputCallResult =
  | { readonly result: CallToolResult; readonly asked?: never }
  | { readonly asked: McpElicitation; readonly result?: never };

type Fulfilled =
  | { readonly responses: Record<string, unknown> }
  | { readonly asked: McpElicitation }
  | { readonly unsupported: string };

/**
 * One `tools/call` through every `input_required` round. Input requests the runtime cannot answer
 * itself (sampling) leave the call to the SDK's own driver, which answers them through the
 * connection's handlers.
 */
export async function callWithInput(
  client: Client,
  params: Parameters<Client['callTool']>[0],
  call: McpCallOptions,
  config: McpServerConfig,
  /** More options of the SDK's `callTool` (the tool's definition, for its `x-mcp-header` arguments). */
  extra: Partial<Parameters<Client['callTool']>[1]> = {},
): Promise<InputCallResult> {
  const options = { ...requestOptions(call), ...extra };
  const answering: InputAnswering = { config, ...(call.onElicit ? { handler: call.onElicit } : {}) };
  let leg: Record<string, unknown> = params;
  const resumed = call.resumeInput?.();
  if (resumed) {
    const fulfilled = fulfil(resumed, answering, true);
    if ('asked' in fulfilled) return fulfilled;
    if ('responses' in fulfilled) leg = retryParams(params, resumed, fulfilled.responses);
  }
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const answer: unknown = await client.callTool(leg as typeof params, {
      ...options,
      allowInputRequired: true,
    });
    if (!isInputRequiredResult(answer)) return { result: answer as CallToolResult };
    const inputRound = roundOf(answer);
    const fulfilled = fulfil(inputRound, answering, false);
    if ('asked' in fulfilled) return fulfilled;
    if ('unsupported' in fulfilled) return { result: await client.callTool(params, options) };
    leg = retryParams(params, inputRound, fulfilled.responses);
  }
  throw new SdkError(
    SdkErrorCode.InputRequiredRoundsExceeded,
    `tools/call ${String(params.name)} still required input after ${MAX_ROUNDS} rounds`,
  );
}

/**
 * Starts the client's JSON-RPC request ids at a random point. A retried `input_required` call must have
 * another id than the call it retries, and the retry may come from another process, whose ids would
 * otherwise count from 0 again as the first one's did.
 */
export function randomRequestIds(client: Client): void {
  // The SDK's counter of request ids (a plain field, private in its types).
  (client as unknown as { _requestMessageId: number })._requestMessageId = randomInt(1, 2 ** 31);
}

/** A call's SDK options: progress resets the timeout, up to `maxTotalMs` in all. */
function requestOptions(options: McpCallOptions): RequestOptions {
  return {
    timeout: options.timeoutMs,
    resetTimeoutOnProgress: true,
    maxTotalTimeout: Math.max(options.maxTotalMs ?? options.timeoutMs, options.timeoutMs),
    signal: options.signal,
    onprogress: (p) =>
      options.onProgress?.({
        progress: p.progress,
        ...(p.total === undefined ? {} : { total: p.total }),
        ...(p.message === undefined ? {} : { message: p.message }),
      }),
  };
}

/** The original params with this round's responses and its request state, byte for byte. */
function retryParams(
  params: Record<string, unknown>,
  round: InputRound,
  responses: Record<string, unknown>,
): Record<string, unknown> {
  return {
    ...params,
    ...(Object.keys(responses).length > 0 ? { inputResponses: responses } : {}),
    ...(round.requestState === undefined ? {} : { requestState: round.requestState }),
  };
}

function roundOf(answer: { inputRequests?: unknown; requestState?: unknown }): InputRound {
  const requests: InputRound['inputRequests'] = {};
  const raw = answer.inputRequests && typeof answer.inputRequests === 'object' ? answer.inputRequests : {};
  for (const [key, entry] of Object.entries(raw as Record<string, { method?: unknown; params?: unknown }>)) {
    const params = entry.params && typeof entry.params === 'object' ? entry.params : undefined;
    requests[key] = {
      method: String(entry.method),
      ...(params ? { params: params as Record<string, unknown> } : {}),
    };
  }
  return {
    inputRequests: requests,
    ...(typeof answer.requestState === 'string' ? { requestState: answer.requestState } : {}),
  };
}

/** Each input request answered, or the first question the person has to answer. */
function fulfil(round: InputRound, answering: InputAnswering, resumed: boolean): Fulfilled {
  const responses: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(round.inputRequests)) {
    if (entry.method === 'roots/list') {
      responses[key] = {
        roots: (answering.config.roots ?? []).map((r) => ({
          uri: r.uri,
          ...(r.name === undefined ? {} : { name: r.name }),
        })),
      };
      continue;
    }
    if (entry.method !== 'elicitation/create') return { unsupported: entry.method };
    const elicitation = elicitationOf(entry.params ?? {});
    const response = elicitResponse(elicitation, answering, resumed);
    if (response === null) return { asked: { ...elicitation, round } };
    responses[key] = response;
  }
  return { responses };
}

/** The answer to one question as the server gets it, or null when the person has to be asked. */
function elicitResponse(
  elicitation: McpElicitation,
  answering: InputAnswering,
  resumed: boolean,
): Record<string, unknown> | null {
  if (answering.config.elicitation === 'defaults' && answeredByDefaults(elicitation))
    return { action: 'accept', content: withSchemaDefaults(elicitation.requestedSchema, {}) };
  if (!answering.handler) return { action: 'cancel' };
  const stored = answering.handler(elicitation, { reuse: resumed });
  if (stored === null) return null;
  if (stored.action !== 'accept') return { action: stored.action };
  if (elicitation.mode !== 'form') return { action: 'accept' };
  return { action: 'accept', content: withSchemaDefaults(elicitation.requestedSchema, stored.content ?? {}) };
}
