import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { anthropicEvents, anthropicMessage, openaiChunks, openaiCompletion, type Turn } from './wire.js';
import { anthropicRefusal, openAiRefusal, qwenTemplateRefusal } from './rules.js';

/** The provider a strict fake speaks. `qwen` is an OpenAI-compatible server with the Qwen chat template. */
export type FakeKind = 'anthropic' | 'openai' | 'qwen';

/** A failure the fake plays instead of a turn (the turn is not used up). */
export type Fault = 'unauthorized' | 'rate-limit' | 'server-error' | 'malformed' | 'hang';

/** What the fake answers to the i-th accepted request: a turn, or a fault. */
export type Play = (
  index: number,
  body: Record<string, unknown>,
) => Turn | { fault: Fault; retryAfter?: number };

/** One request the fake received and what it did with it. */
export interface SeenRequest {
  path: string;
  /** The request body exactly as received (for byte-for-byte comparisons). */
  text: string;
  /** The body's size in tokens as the fake measures it (`approximateTokens` of `text`). */
  inputTokens: number;
  body: Record<string, unknown>;
  stream: boolean;
  /** The refusal (status and message), or null when the request was accepted. */
  refused: { status: number; message: string } | null;
}

/**
 * The fake's measure of a request's input tokens, independent of the runtime's own estimator: the
 * UTF-8 bytes of the whole request body as sent (JSON syntax, escapes, field names, tool schemas and
 * all) divided by 3. It over-estimates what a provider's tokenizer counts: the providers document
 * about 4 characters of English per token (OpenAI) or about 3.5 (Anthropic), a CJK character (3 bytes)
 * counts about one token, and the JSON wrapping around the texts is not tokenized at all.
 */
export function approximateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 3);
}

/** How a strict fake behaves besides its play. */
export interface StrictFakeOptions {
  /**
   * Report each request's measured size (`approximateTokens`) as its input tokens, split the way the
   * provider splits them (Anthropic: `input_tokens` without the cached prefix; OpenAI: `prompt_tokens`
   * with it), instead of the turn's own usage.
   */
  reportInput?: boolean;
  /**
   * The model ids the fake serves (default: any). A request for another is refused as the provider
   * refuses it: OpenAI 404 `model_not_found` ("The model `x` does not exist or you do not have access
   * to it."), Anthropic 404 `not_found_error` ("model: x").
   */
  models?: readonly string[];
  /** The loopback port to listen on (default: any free one). */
  port?: number;
}

/** A strict provider fake on 127.0.0.1. */
export interface StrictFake {
  readonly kind: FakeKind;
  /** The API root including `/v1`. */
  readonly url: string;
  readonly key: string;
  readonly requests: SeenRequest[];
  /** The requests refused for breaking the provider's rules (not the faults the script asked for). */
  refusals(): SeenRequest[];
  close(): Promise<void>;
}

/**
 * Starts a fake Anthropic Messages or OpenAI Chat Completions server that refuses, with the provider's
 * status and error shape, every request the real service would refuse (rules.ts), checks
 * the key, and otherwise plays `play(i)` for the i-th accepted request, as JSON or as SSE when the
 * request asks for a stream. It reports cached prompt tokens the way the provider does: Anthropic when
 * the request's `cache_control` prefix (tools, system) equals an earlier one, OpenAI when the system
 * message and tools do. It records every request's body as received and its measured size; with
 * `options.reportInput` it reports that size as the input tokens.
 */
export async function startStrictFake(
  kind: FakeKind,
  play: Play,
  key = `sk-${kind}-test`,
  options: StrictFakeOptions = {},
): Promise<StrictFake> {
  const requests: SeenRequest[] = [];
  const prefixes = new Set<string>();
  let accepted = 0;
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    void readBody(req).then((text) => {
      const seen: SeenRequest = {
        path: req.url ?? '/',
        text,
        inputTokens: approximateTokens(text),
        body: {},
        stream: false,
        refused: null,
      };
      requests.push(seen);
      const refuse = (
        status: number,
        message: string,
        type = 'invalid_request_error',
        param: string | null = null,
      ): void => {
        seen.refused = { status, message };
        sendError(res, kind, status, message, type, param);
      };
      const auth = kind === 'anthropic' ? req.headers['x-api-key'] : req.headers.authorization;
      if (auth !== (kind === 'anthropic' ? key : `Bearer ${key}`))
        return refuse(
          401,
          kind === 'anthropic' ? 'invalid x-api-key' : 'Incorrect API key provided',
          'authentication_error',
          null,
        );
      const path = kind === 'anthropic' ? '/v1/messages' : '/v1/chat/completions';
      if (req.method !== 'POST' || seen.path !== path)
        return refuse(404, `Not found: ${req.method} ${seen.path}`, 'not_found_error');
      if (kind === 'anthropic' && typeof req.headers['anthropic-version'] !== 'string')
        return refuse(400, 'anthropic-version: header is required');
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return refuse(400, 'There was an error parsing the body of your request as JSON');
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body))
        return refuse(400, 'the body must be a JSON object');
      seen.body = body as Record<string, unknown>;
      seen.stream = seen.body.stream === true;
      const model = String(seen.body.model);
      if (options.models && !options.models.includes(model)) {
        seen.refused = { status: 404, message: `model ${model}` };
        return kind === 'anthropic'
          ? sendError(res, kind, 404, `model: ${model}`, 'not_found_error', null)
          : sendError(
              res,
              kind,
              404,
              `The model \`${model}\` does not exist or you do not have access to it.`,
              'invalid_request_error',
              null,
              'model_not_found',
            );
      }
      const problem = refusalOf(kind, seen.body);
      if (problem) return refuse(400, problem.message, 'invalid_request_error', problem.param);
      const next = play(accepted, seen.body);
      if ('fault' in next) return playFault(res, kind, next.fault, next.retryAfter);
      accepted += 1;
      const cached = cachedTokens(kind, seen.body, prefixes);
      const usage = { ...(next.usage ?? { input: 0, output: 0 }) };
      if (options.reportInput) {
        const uncached = seen.inputTokens - cached.read - (kind === 'anthropic' ? cached.write : 0);
        usage.input = Math.max(0, uncached);
      }
      const turn = { ...next, usage };
      answer(res, kind, seen.stream, turn, cached);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', fail);
      done();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    kind,
    url: `http://127.0.0.1:${port}/v1`,
    key,
    requests,
    refusals: () => requests.filter((r) => r.refused !== null && r.refused.status === 400),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

function refusalOf(
  kind: FakeKind,
  body: Record<string, unknown>,
): { message: string; param: string | null } | null {
  if (kind === 'anthropic') {
    const message = anthropicRefusal(body);
    return message ? { message, param: null } : null;
  }
  const refusal = openAiRefusal(body);
  if (refusal || kind === 'openai') return refusal;
  const message = qwenTemplateRefusal(body);
  return message ? { message, param: null } : null;
}

/** The provider's error body: Anthropic `{type:'error', error:{type, message}}`, OpenAI `{error:{message, type, param, code}}`. */
function sendError(
  res: ServerResponse,
  kind: FakeKind,
  status: number,
  message: string,
  type: string,
  param: string | null,
  code: string | null = status === 401 ? 'invalid_api_key' : null,
): void {
  const body =
    kind === 'anthropic'
      ? { type: 'error', error: { type, message } }
      : { error: { message, type, param, code } };
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function playFault(res: ServerResponse, kind: FakeKind, fault: Fault, retryAfter = 1): void {
  switch (fault) {
    case 'unauthorized':
      return sendError(
        res,
        kind,
        401,
        kind === 'anthropic' ? 'invalid x-api-key' : 'Incorrect API key provided',
        'authentication_error',
        null,
      );
    case 'rate-limit':
      res.setHeader('retry-after', String(retryAfter));
      return sendError(
        res,
        kind,
        429,
        'Rate limit reached; please retry later',
        kind === 'anthropic' ? 'rate_limit_error' : 'requests',
        null,
      );
    case 'server-error':
      return sendError(
        res,
        kind,
        kind === 'anthropic' ? 529 : 500,
        kind === 'anthropic' ? 'Overloaded' : 'The server had an error while processing your request',
        kind === 'anthropic' ? 'overloaded_error' : 'server_error',
        null,
      );
    case 'malformed':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id": "broken", "choices": [');
      return;
    case 'hang':
      return;
  }
}

/** Cached prompt tokens: a request whose cacheable prefix was seen before reads it from the cache. */
function cachedTokens(
  kind: FakeKind,
  body: Record<string, unknown>,
  seen: Set<string>,
): { read: number; write: number } {
  const messages = Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [];
  const prefix =
    kind === 'anthropic'
      ? JSON.stringify([body.tools, body.system])
      : JSON.stringify([body.tools, messages.filter((m) => m.role === 'system')]);
  if (kind === 'anthropic' && !JSON.stringify([body.tools, body.system]).includes('cache_control'))
    return { read: 0, write: 0 };
  const size = Math.ceil(prefix.length / 4);
  if (seen.has(prefix)) return { read: size, write: 0 };
  seen.add(prefix);
  return { read: 0, write: kind === 'anthropic' ? size : 0 };
}

function answer(
  res: ServerResponse,
  kind: FakeKind,
  stream: boolean,
  turn: Turn,
  cached: { read: number; write: number },
): void {
  if (!stream) {
    const body = kind === 'anthropic' ? anthropicMessage(turn) : openaiCompletion(turn);
    addCacheUsage(kind, body, cached);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
    return;
  }
  const events = kind === 'anthropic' ? anthropicEvents(turn) : openaiChunks(turn);
  for (const event of events)
    addCacheUsage(
      kind,
      kind === 'anthropic' ? (event.data as { message?: unknown }).message : event.data,
      cached,
    );
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of events) {
    const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
    res.write(`${event.event ? `event: ${event.event}\n` : ''}data: ${data}\n\n`);
  }
  res.end();
}

function addCacheUsage(kind: FakeKind, body: unknown, cached: { read: number; write: number }): void {
  if (typeof body !== 'object' || body === null) return;
  const usage = (body as { usage?: Record<string, unknown> }).usage;
  if (!usage) return;
  if (kind === 'anthropic') {
    usage.cache_read_input_tokens = cached.read;
    usage.cache_creation_input_tokens = cached.write;
  } else if ('prompt_tokens' in usage) {
    usage.prompt_tokens = (usage.prompt_tokens as number) + cached.read;
    usage.total_tokens = (usage.total_tokens as number) + cached.read;
    usage.prompt_tokens_details = { cached_tokens: cached.read };
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
