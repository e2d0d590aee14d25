import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hint } from '../../src/domain/hints.js';
import type { McpServerConfig } from '../../src/domain/flow.js';
import { McpPool, type FlowServers } from '../../src/mcp/pool.js';
import { ToolInvoker } from '../../src/tools/invoker.js';
import type { ToolDescriptor } from '../../src/tools/tool.js';
import {
  closedPort,
  demoDataDir,
  demoStdioConfig,
  readCancellations,
  readWriteLog,
  REPO_ROOT,
  startDemoHttp,
  type DemoHttpServer,
} from '../helpers/demo-server.js';

/** One demo server reached over one transport, with a pool, an invoker and the server's descriptors. */
interface Harness {
  dataDir: string;
  invoker: ToolInvoker;
  servers: FlowServers;
  tools: Map<string, ToolDescriptor>;
  /** Brings a crashed server back (stdio restarts by itself on the next call). */
  revive(): Promise<void>;
  close(): Promise<void>;
}

async function harness(
  config: McpServerConfig,
  dataDir: string,
  revive: () => Promise<void>,
  close: () => Promise<void>,
): Promise<Harness> {
  const pool = new McpPool();
  const servers = pool.forFlow({ id: 'invoker-test', version: 1, mcpServers: { cloud: config } }, REPO_ROOT);
  const tools = new Map((await servers.catalog()).map((t) => [t.name, t]));
  return {
    dataDir,
    invoker: new ToolInvoker({ servers }),
    servers,
    tools,
    revive,
    close: async () => {
      await pool.close();
      await close();
    },
  };
}

async function stdioHarness(): Promise<Harness> {
  const { config, dataDir } = demoStdioConfig({ dedupe: true });
  return harness(
    config,
    dataDir,
    () => Promise.resolve(),
    () => Promise.resolve(),
  );
}

async function httpHarness(): Promise<Harness> {
  let server: DemoHttpServer = await startDemoHttp({ dedupe: true });
  const revive = async () => {
    await server.exited;
    server = await startDemoHttp({ dedupe: true, port: server.port, dataDir: server.dataDir });
  };
  return harness({ url: server.url }, server.dataDir, revive, () => server.stop());
}

describe.each([
  ['stdio', stdioHarness],
  ['Streamable HTTP', httpHarness],
] as const)('ToolInvoker against the demo server over %s', (transport, make) => {
  let h: Harness;
  const t = (name: string): ToolDescriptor => h.tools.get(name)!;
  const zh = { timeoutMs: 5_000, locale: 'zh-CN' } as const;

  beforeAll(async () => {
    h = await make();
  });
  afterAll(async () => {
    await h.close();
  });

  it('SUCCESS: data is the structuredContent, summary names the tool', async () => {
    const obs = await h.invoker.invoke(t('space_list'), {}, zh);
    expect(obs.outcome.name).toBe('SUCCESS');
    expect(obs.reason).toBe('调用 space_list 成功');
    expect(obs.data).toEqual({
      code: 0,
      message: 'ok',
      data: [
        { spaceId: 's1', name: '默认空间' },
        { spaceId: 's2', name: '测试空间' },
      ],
    });
  });

  it('SUCCESS: a single text block is parsed as JSON, else kept as text', async () => {
    expect((await h.invoker.invoke(t('strict_echo'), { text: '{"a":[1,2]}' }, zh)).data).toEqual({
      a: [1, 2],
    });
    expect((await h.invoker.invoke(t('strict_echo'), { text: 'plain words' }, zh)).data).toBe('plain words');
  });

  it('a business failure passes through as SUCCESS (the response contract judges it later)', async () => {
    const args = { spaceId: 's1', name: `dup-${transport}` };
    expect((await h.invoker.invoke(t('web_site_create'), args, zh)).ok).toBe(true);
    const obs = await h.invoker.invoke(t('web_site_create'), args, zh);
    expect(obs.outcome.name).toBe('SUCCESS');
    expect(obs.data).toEqual({ code: 'system.50001', message: '站点名称已存在' });
  });

  it('sends the idempotency key in _meta: a deduplicating server executes the write once', async () => {
    const args = { spaceId: 's2', name: `once-${transport}` };
    const meta = { idempotencyKey: `run-${transport}:web_site_create#abc` };
    const first = await h.invoker.invoke(t('web_site_create'), args, { ...zh, meta });
    const again = await h.invoker.invoke(t('web_site_create'), args, { ...zh, meta });
    expect(again.data).toEqual(first.data);
    const writes = readWriteLog(h.dataDir).filter((w) => w.idempotencyKey === meta.idempotencyKey);
    expect(writes).toHaveLength(1);
    expect(writes[0]!.reply).toMatchObject({ code: 0, data: { name: args.name, status: 'CREATING' } });
  });

  it('isError → FAILED MCP_TOOL_ERROR with the error text in the reason', async () => {
    const obs = await h.invoker.invoke(t('faulty_tool'), {}, zh);
    expect(obs.outcome.name).toBe('FAILED');
    expect(obs.errorCode).toBe('MCP_TOOL_ERROR');
    expect(obs.reason).toBe('工具 faulty_tool 执行出错：演示故障：存储不可用');
    expect(obs.next).toBe(hint('zh-CN', 'NEXT_TOOL_ERROR'));
    const en = await h.invoker.invoke(t('faulty_tool'), {}, { ...zh, locale: 'en' });
    expect(en.message('en')).toBe(
      `Tool faulty_tool reported an error: 演示故障：存储不可用. Next: ${hint('en', 'NEXT_TOOL_ERROR')}.`,
    );
  });

  it('JSON-RPC -32602 → FAILED MCP_INVALID_PARAMS (bad arguments and unknown tool)', async () => {
    const obs = await h.invoker.invoke(t('strict_echo'), { text: 42 }, zh);
    expect(obs.errorCode).toBe('MCP_INVALID_PARAMS');
    expect(obs.reason).toMatch(/^工具 strict_echo 不接受这些参数：.*text must be a string/);
    expect(obs.next).toBe(hint('zh-CN', 'NEXT_INVALID_PARAMS'));
    const unknown = await h.invoker.invoke(
      { ...t('space_list'), name: 'ghost', remoteName: 'ghost' },
      {},
      zh,
    );
    expect(unknown.errorCode).toBe('MCP_INVALID_PARAMS');
  });

  it('another JSON-RPC error → FAILED MCP_RPC_ERROR with its code', async () => {
    const obs = await h.invoker.invoke(t('rpc_error'), {}, { ...zh, locale: 'en' });
    expect(obs.errorCode).toBe('MCP_RPC_ERROR');
    expect(obs.reason).toMatch(
      /^Tool rpc_error answered with a protocol error \[-32603\]: .*demo internal error/,
    );
    expect(obs.next).toBe(hint('en', 'NEXT_RPC'));
  });

  it('timeout → FAILED TOOL_TIMEOUT, the call is cancelled', async () => {
    const started = Date.now();
    const obs = await h.invoker.invoke(t('slow_query'), { ms: 20_000 }, { ...zh, timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(obs.errorCode).toBe('TOOL_TIMEOUT');
    expect(obs.reason).toBe('工具 slow_query 调用超时（300 ms）');
    expect(obs.next).toBe(hint('zh-CN', 'NEXT_TIMEOUT'));
    if (transport === 'stdio') {
      await expect.poll(() => readCancellations(h.dataDir).length, { timeout: 3_000 }).toBe(1);
    }
    expect((await h.invoker.invoke(t('space_list'), {}, zh)).ok).toBe(true);
  });

  it('killed server → FAILED TOOL_UNREACHABLE, then the next call works again', async () => {
    const obs = await h.invoker.invoke(t('crash_server'), {}, zh);
    expect(obs.errorCode).toBe('TOOL_UNREACHABLE');
    expect(obs.reason).toMatch(/^工具 crash_server 不可达：/);
    expect(obs.next).toBe(hint('zh-CN', 'NEXT_UNREACHABLE'));
    await h.revive();
    const after = await h.invoker.invoke(t('web_site_list'), { spaceId: 's1' }, zh);
    expect(after.ok).toBe(true);
    expect((after.data as { data: { name: string }[] }).data.map((s) => s.name)).toContain(
      `dup-${transport}`,
    );
  });
});

describe('ToolInvoker: servers that cannot be reached', () => {
  it('HTTP to a closed port → FAILED TOOL_UNREACHABLE', async () => {
    const pool = new McpPool();
    try {
      const port = await closedPort();
      const servers = pool.forFlow(
        { id: 'f', version: 1, mcpServers: { web: { url: `http://127.0.0.1:${port}/mcp` } } },
        REPO_ROOT,
      );
      const invoker = new ToolInvoker({ servers });
      const tool: ToolDescriptor = {
        name: 'space_list',
        description: '',
        inputSchema: {},
        kind: 'mcp',
        server: 'web',
        remoteName: 'space_list',
      };
      const obs = await invoker.invoke(tool, {}, { timeoutMs: 2_000, locale: 'en' });
      expect(obs.errorCode).toBe('TOOL_UNREACHABLE');
      expect(obs.reason).toMatch(/^Tool space_list is unreachable: cannot connect to MCP server web/);
    } finally {
      await pool.close();
    }
  });

  it('a stdio command that does not exist → FAILED TOOL_UNREACHABLE', async () => {
    const pool = new McpPool();
    try {
      const servers = pool.forFlow(
        { id: 'f', version: 1, mcpServers: { gone: { command: 'no-such-server-cmd', args: [] } } },
        demoDataDir(),
      );
      const invoker = new ToolInvoker({ servers });
      const tool: ToolDescriptor = {
        name: 'x',
        description: '',
        inputSchema: {},
        kind: 'mcp',
        server: 'gone',
        remoteName: 'x',
      };
      expect((await invoker.invoke(tool, {}, { timeoutMs: 2_000, locale: 'zh-CN' })).errorCode).toBe(
        'TOOL_UNREACHABLE',
      );
    } finally {
      await pool.close();
    }
  });
});
