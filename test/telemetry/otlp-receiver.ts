import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request an OTLP/HTTP exporter sent. */
export interface OtlpRequest {
  path: string;
  contentType: string;
  body: Buffer;
}

/** A span as both the JSON and the protobuf decoders give it. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
}

/**
 * An OTLP/HTTP receiver on a random loopback port: it answers every POST with 200 and keeps the
 * requests, and wakes `waitFor` callers as they come (no fixed sleeps).
 */
export class OtlpReceiver {
  readonly requests: OtlpRequest[] = [];
  private readonly server: Server;
  private waiters: (() => void)[] = [];

  private constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.requests.push({
          path: req.url ?? '',
          contentType: String(req.headers['content-type'] ?? ''),
          body: Buffer.concat(chunks),
        });
        const json = String(req.headers['content-type']).includes('json');
        res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
        res.end(json ? '{}' : undefined);
        for (const wake of this.waiters.splice(0)) wake();
      });
    });
  }

  /** Starts a receiver. */
  static async start(): Promise<OtlpReceiver> {
    const receiver = new OtlpReceiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resolves once `done()` holds for the requests received, or rejects after `ms`. */
  async waitFor(done: (requests: OtlpRequest[]) => boolean, ms = 20_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!done(this.requests)) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`OTLP receiver: not there after ${ms} ms (${this.requests.length} requests)`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The spans of every trace request received (JSON or protobuf). */
  spans(): ReceivedSpan[] {
    return this.requests
      .filter((r) => r.path === '/v1/traces')
      .flatMap((r) => (r.contentType.includes('json') ? jsonSpans(r.body) : protobufSpans(r.body)));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

type JsonAttr = { key: string; value: Record<string, unknown> };

/** Spans of an OTLP/JSON ExportTraceServiceRequest. */
export function jsonSpans(body: Buffer): ReceivedSpan[] {
  const request = JSON.parse(body.toString('utf8')) as {
    resourceSpans: {
      scopeSpans: {
        spans: (Omit<ReceivedSpan, 'attributes' | 'events'> & {
          attributes?: JsonAttr[];
          events?: { name: string; attributes?: JsonAttr[] }[];
        })[];
      }[];
    }[];
  };
  return request.resourceSpans.flatMap((rs) =>
    rs.scopeSpans.flatMap((ss) =>
      ss.spans.map((s) => ({
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ?? '',
        name: s.name,
        attributes: jsonAttributes(s.attributes),
        events: (s.events ?? []).map((e) => ({ name: e.name, attributes: jsonAttributes(e.attributes) })),
      })),
    ),
  );
}

/** The resource attributes of every JSON request on `path`. */
export function jsonResourceAttributes(body: Buffer): Record<string, unknown>[] {
  const request = JSON.parse(body.toString('utf8')) as Record<
    string,
    { resource?: { attributes?: JsonAttr[] } }[]
  >;
  return Object.values(request).flatMap((list) => list.map((r) => jsonAttributes(r.resource?.attributes)));
}

function jsonAttributes(list: JsonAttr[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) {
    const v = value.stringValue ?? value.boolValue ?? value.doubleValue ?? value.intValue ?? value.arrayValue;
    out[key] = typeof v === 'string' && value.intValue !== undefined ? Number(v) : v;
  }
  return out;
}

/** A protobuf field: its number and its value (varint as bigint, length-delimited as bytes). */
type Field = { no: number; value: bigint | Buffer };

/** Decodes the top level of a protobuf message (wire types 0, 1, 2 and 5). */
function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let i = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buf[i++] as number;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (i < buf.length) {
    const key = Number(varint());
    const no = key >> 3;
    const wire = key & 7;
    const fixed = wire === 1 ? 8 : wire === 5 ? 4 : 0;
    if (wire === 0) out.push({ no, value: varint() });
    else if (fixed > 0) {
      out.push({ no, value: buf.subarray(i, i + fixed) });
      i += fixed;
    } else if (wire === 2) {
      const len = Number(varint());
      out.push({ no, value: buf.subarray(i, i + len) });
      i += len;
    } else throw new Error(`unsupported protobuf wire type ${wire}`);
  }
  return out;
}

const bytesOf = (list: Field[], no: number): Buffer[] =>
  list.filter((f) => f.no === no).map((f) => f.value as Buffer);

/** Spans of an OTLP protobuf ExportTraceServiceRequest (ids, names and string/bool/int attributes). */
export function protobufSpans(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of bytesOf(fields(body), 1)) {
    for (const scopeSpans of bytesOf(fields(resourceSpans), 2)) {
      for (const raw of bytesOf(fields(scopeSpans), 2)) {
        const f = fields(raw);
        const hex = (no: number) => bytesOf(f, no)[0]?.toString('hex') ?? '';
        spans.push({
          traceId: hex(1),
          spanId: hex(2),
          parentSpanId: hex(4),
          name: bytesOf(f, 5)[0]?.toString('utf8') ?? '',
          attributes: protobufAttributes(bytesOf(f, 9)),
          events: bytesOf(f, 11).map((e) => ({
            name: bytesOf(fields(e), 2)[0]?.toString('utf8') ?? '',
            attributes: protobufAttributes(bytesOf(fields(e), 3)),
          })),
        });
      }
    }
  }
  return spans;
}

function protobufAttributes(list: Buffer[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list) {
    const f = fields(kv);
    const key = bytesOf(f, 1)[0]?.toString('utf8') ?? '';
    const any = fields(bytesOf(f, 2)[0] ?? Buffer.alloc(0))[0];
    if (!any) continue;
    if (any.no === 1) out[key] = (any.value as Buffer).toString('utf8');
    else if (any.no === 2) out[key] = any.value === 1n;
    else if (any.no === 3) out[key] = Number(any.value);
  }
  return out;
}
