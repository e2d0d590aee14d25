import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { code } from '../../src/domain/error-codes.js';
import { hint } from '../../src/domain/hints.js';
import { ToolRejectedException } from '../../src/tools/rejected.js';
import { ToolInvoker } from '../../src/tools/invoker.js';
import { defineTool, type LocalToolContext, type ToolDescriptor } from '../../src/tools/tool.js';
import type { McpConnection } from '../../src/mcp/types.js';

const zh = { timeoutMs: 1_000, locale: 'zh-CN' } as const;

describe('ToolInvoker with local tools', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('SUCCESS with the returned value; the idempotency key reaches the tool', async () => {
    const seen: LocalToolContext[] = [];
    const quote = defineTool<{ sku: string }>({
      name: 'price_quote',
      description: 'Quotes a price',
      inputSchema: { type: 'object', properties: { sku: { type: 'string' } } },
      execute: (args, context) => {
        seen.push(context);
        return { sku: args.sku, price: 12 };
      },
    });
    const invoker = new ToolInvoker({ localTools: [quote] });
    const obs = await invoker.invoke(
      quote.descriptor,
      { sku: 'A1' },
      { ...zh, meta: { idempotencyKey: 'run:fp' } },
    );
    expect(obs.outcome.name).toBe('SUCCESS');
    expect(obs.reason).toBe('调用 price_quote 成功');
    expect(obs.data).toEqual({ sku: 'A1', price: 12 });
    expect(seen[0]?.idempotencyKey).toBe('run:fp');
    expect(seen[0]?.signal.aborted).toBe(false);
  });

  it('a tool that answers at once leaves no timer behind; one that answers later is timed', async () => {
    const now = defineTool({ name: 'now', description: '', inputSchema: {}, execute: () => ({ at: 1 }) });
    const later = defineTool({
      name: 'later',
      description: '',
      inputSchema: {},
      execute: () => Promise.resolve({ at: 2 }),
    });
    const invoker = new ToolInvoker({ localTools: [now, later] });
    const quick = invoker.invoke(now.descriptor, {}, zh);
    expect(vi.getTimerCount()).toBe(0);
    expect((await quick).data).toEqual({ at: 1 });
    const slow = invoker.invoke(later.descriptor, {}, zh);
    expect(vi.getTimerCount()).toBe(1);
    expect((await slow).data).toEqual({ at: 2 });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a tool returning nothing succeeds with null data', async () => {
    const noop = defineTool({ name: 'noop', description: '', inputSchema: {}, execute: () => undefined });
    const obs = await new ToolInvoker({ localTools: [noop] }).invoke(noop.descriptor, {}, zh);
    expect(obs.ok).toBe(true);
    expect(obs.data).toBeNull();
  });

  it('a throw → FAILED TOOL_ERROR with the error message', async () => {
    const broken = defineTool({
      name: 'broken',
      description: '',
      inputSchema: {},
      execute: () => {
        throw new Error('ledger locked');
      },
    });
    const obs = await new ToolInvoker({ localTools: [broken] }).invoke(
      broken.descriptor,
      {},
      { ...zh, locale: 'en' },
    );
    expect(obs.errorCode).toBe('TOOL_ERROR');
    expect(obs.reason).toBe('Tool broken failed unexpectedly: ledger locked');
    expect(obs.next).toBe(hint('en', 'NEXT_TOOL_ERROR'));
  });

  it('a tool that does not finish in time → FAILED TOOL_TIMEOUT, and its signal is aborted', async () => {
    let signal: AbortSignal | undefined;
    const hang = defineTool({
      name: 'hang',
      description: '',
      inputSchema: {},
      execute: (_args, context) => {
        signal = context.signal;
        return new Promise(() => undefined);
      },
    });
    const pending = new ToolInvoker({ localTools: [hang] }).invoke(
      hang.descriptor,
      {},
      { ...zh, timeoutMs: 5_000 },
    );
    await vi.advanceTimersByTimeAsync(4_999);
    expect(signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const obs = await pending;
    expect(obs.errorCode).toBe('TOOL_TIMEOUT');
    expect(obs.reason).toBe('工具 hang 调用超时（5000 ms）');
    expect(obs.next).toBe(hint('zh-CN', 'NEXT_TIMEOUT'));
    expect(signal?.aborted).toBe(true);
  });

  it('a cancelled run aborts the tool and the call FAILS without waiting for the timeout', async () => {
    const controller = new AbortController();
    const hang = defineTool({
      name: 'hang',
      description: '',
      inputSchema: {},
      execute: () => new Promise(() => undefined),
    });
    const pending = new ToolInvoker({ localTools: [hang] }).invoke(
      hang.descriptor,
      {},
      { ...zh, signal: controller.signal },
    );
    controller.abort();
    const obs = await pending;
    expect(obs.outcome.name).toBe('FAILED');
    expect(obs.errorCode).toBe('TOOL_ERROR');
  });

  it('wiring bugs throw: builtin tools, unknown local tools, MCP tools without servers', () => {
    const invoker = new ToolInvoker();
    const builtin: ToolDescriptor = {
      name: 'builtin_node_finish',
      description: '',
      inputSchema: {},
      kind: 'builtin',
    };
    expect(() => invoker.invoke(builtin, {}, zh)).toThrow(/does not run builtin tools/);
    const local: ToolDescriptor = { name: 'ghost', description: '', inputSchema: {}, kind: 'local' };
    return Promise.all([
      expect(invoker.invoke(local, {}, zh)).rejects.toThrow(/no local tool ghost/),
      expect(invoker.invoke({ ...local, kind: 'mcp', server: 'cloud' }, {}, zh)).rejects.toThrow(
        /no MCP servers/,
      ),
    ]);
  });
});

describe('ToolInvoker with an injected MCP connection', () => {
  it('calls by remote name with timeout, signal and meta, and names the aliased tool in texts', async () => {
    const calls: unknown[] = [];
    const connection: McpConnection = {
      serverId: 'other',
      pid: null,
      listTools: () => Promise.resolve([]),
      callTool: (name, args, options) => {
        calls.push({ name, args, options });
        return Promise.resolve({ content: [{ type: 'text', text: 'not json' }], isError: false });
      },
      close: () => Promise.resolve(),
    };
    const invoker = new ToolInvoker({
      servers: { connection: (id) => (id === 'other' ? connection : assertNever(id)) },
    });
    const tool: ToolDescriptor = {
      name: 'other_sites',
      description: '',
      inputSchema: {},
      kind: 'mcp',
      server: 'other',
      remoteName: 'web_site_list',
    };
    const obs = await invoker.invoke(
      tool,
      { spaceId: 's1' },
      { timeoutMs: 700, locale: 'en', meta: { idempotencyKey: 'k' } },
    );
    expect(obs.reason).toBe('Call of other_sites succeeded');
    expect(obs.data).toBe('not json');
    expect(calls).toEqual([
      {
        name: 'web_site_list',
        args: { spaceId: 's1' },
        options: { timeoutMs: 700, signal: undefined, meta: { idempotencyKey: 'k' } },
      },
    ]);
  });
});

function assertNever(id: string): never {
  throw new Error(`unexpected server ${id}`);
}

describe('a local tool throwing ToolRejectedException', () => {
  const rejecting = (how: 'throw' | 'reject' | 'cause') =>
    defineTool({
      name: 'order_cancel',
      description: 'Cancels an order',
      inputSchema: {},
      execute: () => {
        const rejection = new ToolRejectedException(
          code('ARG_REJECTED'),
          'order 7 is already shipped',
          'tell the user a shipped order cannot be cancelled',
        );
        if (how === 'throw') throw rejection;
        if (how === 'cause') return Promise.reject(new Error('wrapped', { cause: rejection }));
        return Promise.reject(rejection);
      },
    });

  it.each(['throw', 'reject', 'cause'] as const)(
    'is REJECTED with its code, reason and next step (%s)',
    async (how) => {
      const tool = rejecting(how);
      const obs = await new ToolInvoker({ localTools: [tool] }).invoke(tool.descriptor, {}, zh);
      expect(obs.outcome.name).toBe('REJECTED');
      expect(obs.errorCode).toBe('ARG_REJECTED');
      expect(obs.reason).toBe('order 7 is already shipped');
      expect(obs.next).toBe('tell the user a shipped order cannot be cancelled');
    },
  );

  it('any other error is still FAILED TOOL_ERROR', async () => {
    const tool = defineTool({
      name: 'boom',
      description: '',
      inputSchema: {},
      execute: () => {
        throw new Error('ledger locked');
      },
    });
    const obs = await new ToolInvoker({ localTools: [tool] }).invoke(tool.descriptor, {}, zh);
    expect([obs.outcome.name, obs.errorCode]).toEqual(['FAILED', 'TOOL_ERROR']);
  });
});
