import { randomBytes, randomUUID } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  createRequestStateCodec,
  inputRequired,
  type InputRequiredResult,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { AskedItem, ElicitAnswer, ElicitForm, FlowCaller } from './mcp-flow-call.js';

/** How long a client may take to answer an `input_required` question (seconds). */
export const REQUEST_STATE_TTL_SECONDS = 3600;

/** The key of the one input request a flow call asks (`inputRequests` / `inputResponses`). */
export const INPUT_KEY = 'pending';

/** What a minted request state says: the run and pending item asked about, by whom, for which tool. */
interface AskedState extends AskedItem {
  readonly tool: string;
  readonly caller: string;
  readonly nonce: string;
}

/**
 * The request states of the `input_required` rounds of one server process: HMAC-SHA256-signed (the
 * SDK's codec, a random key per process, REQUEST_STATE_TTL_SECONDS valid), each one answered at most
 * once (its nonce is consumed). A state that fails verification is refused by the SDK before any
 * handler runs (`-32602 Invalid or expired requestState`).
 */
export class RequestStates {
  private readonly codec: RequestStateCodec<AskedState>;
  /** Consumed nonces, with when they expire (ms since the epoch). */
  private readonly used = new Map<string, number>();

  constructor(key: Uint8Array = randomBytes(32)) {
    this.codec = createRequestStateCodec<AskedState>({ key, ttlSeconds: REQUEST_STATE_TTL_SECONDS });
  }

  /** For `ServerOptions.requestState.verify`: the decoded state, or a throw the SDK answers -32602. */
  readonly verify = (state: string, ctx: ServerContext): Promise<AskedState> => this.codec.verify(state, ctx);

  /** The request state of a question about `asked`, for `tool`, asked of `caller`. */
  mint(asked: AskedItem, tool: string, caller: FlowCaller): Promise<string> {
    return this.codec.mint({ ...asked, tool, caller: callerKey(caller), nonce: randomUUID() });
  }

  /** False when the state was answered before (a replay); else marks it answered. */
  consume(nonce: string, now = Date.now()): boolean {
    for (const [key, expires] of this.used) if (expires < now) this.used.delete(key);
    if (this.used.has(nonce)) return false;
    this.used.set(nonce, now + REQUEST_STATE_TTL_SECONDS * 1000);
    return true;
  }
}

/** True when the request's client declared form elicitation (2026-07-28: the per-request envelope). */
export function takesForms(ctx: ServerContext): boolean {
  // The SDK types the envelope loosely: its capabilities key holds the request's ClientCapabilities.
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared = (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined)?.elicitation;
  if (declared === undefined) return false;
  // An empty elicitation capability means form mode (the 2025-06-18 meaning, kept).
  return declared.form !== undefined || declared.url === undefined;
}

/** `host.inputRequired` of a 2026-07-28 call of `tool`: the form as the one input request, with its state. */
export function askInBand(
  states: RequestStates,
  tool: string,
  caller: FlowCaller,
): (runId: string, pendingId: string | null, form: ElicitForm) => Promise<InputRequiredResult> {
  return async (runId, pendingId, form) =>
    inputRequired({
      inputRequests: {
        [INPUT_KEY]: inputRequired.elicit({
          mode: 'form',
          message: form.message,
          requestedSchema: form.requestedSchema as Parameters<
            typeof inputRequired.elicit
          >[0]['requestedSchema'],
        }),
      },
      requestState: await states.mint({ runId, pendingId }, tool, caller),
    });
}

/** What a retried call carries: the item it answers and the answer (null: none readable). */
export interface AnsweredRound {
  readonly asked: AskedItem;
  readonly answer: ElicitAnswer | null;
}

/**
 * The answered round of a retried call of `tool` (its request state already verified by the SDK), or
 * null when the call carries no request state. A string when the state may not be used here: another
 * tool's or another caller's, or answered before (a replay).
 */
export function answeredRound(
  ctx: ServerContext,
  states: RequestStates,
  tool: string,
  caller: FlowCaller,
): AnsweredRound | string | null {
  const state = ctx.mcpReq.requestState<AskedState>();
  if (state === undefined || typeof state !== 'object') return null;
  if (state.tool !== tool)
    return `the request state was issued for tool ${JSON.stringify(state.tool)}, not ${JSON.stringify(tool)}`;
  if (state.caller !== callerKey(caller)) return 'the request state was issued to another caller';
  const answer = answerOf(ctx.mcpReq.inputResponses?.[INPUT_KEY]);
  // An unreadable answer leaves the state unused: the question is asked again.
  if (answer !== null && !states.consume(state.nonce))
    return `this answer for run ${state.runId} was already given (a request state is answered once)`;
  return { asked: { runId: state.runId, pendingId: state.pendingId }, answer };
}

/** An elicitation result as the client sent it, or null when it is not one. */
function answerOf(raw: unknown): ElicitAnswer | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const { action, content } = raw as Record<string, unknown>;
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') return null;
  if (content === undefined) return { action };
  if (typeof content !== 'object' || content === null || Array.isArray(content)) return null;
  return { action, content: content as Record<string, unknown> };
}

function callerKey(caller: FlowCaller): string {
  return `${caller.name}\u0000${caller.tenant ?? ''}`;
}
