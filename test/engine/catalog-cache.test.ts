import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { DefaultToolbox } from '../../src/engine/default-toolbox.js';
import type { FlowRef } from '../../src/engine/toolbox.js';
import type { Flow } from '../../src/domain/flow.js';
import { loadFlow } from '../../src/flow/load.js';
import { silentLogger } from '../../src/log/logger.js';
import type { McpConnection } from '../../src/mcp/types.js';

/** The tool catalogs of DefaultToolbox are bounded: least recently used dropped first, failures not kept. */

interface Fake {
  closed: boolean;
  lists: number;
  fail: boolean;
}

const fakes: Fake[] = [];
const toolboxes: DefaultToolbox[] = [];

function toolbox(maxCatalogs: number): DefaultToolbox {
  const box = new DefaultToolbox({
    localTools: [],
    logger: silentLogger,
    maxCatalogs,
    mcp: {
      connect: (o) => {
        const fake: Fake = { closed: false, lists: 0, fail: fakes.length === 0 && o.serverId === 'flaky' };
        const connection: McpConnection = {
          serverId: o.serverId,
          pid: null,
          listTools: () => {
            fake.lists += 1;
            if (fake.fail) {
              fake.fail = false;
              return Promise.reject(new Error('not yet'));
            }
            return Promise.resolve([
              { name: 'probe', description: '', inputSchema: {}, kind: 'mcp', server: o.serverId },
            ]);
          },
          callTool: () => Promise.reject(new Error('not used')),
          close: () => {
            fake.closed = true;
            return Promise.resolve();
          },
        };
        fakes.push(fake);
        return connection;
      },
    },
  });
  toolboxes.push(box);
  return box;
}

afterEach(async () => {
  await Promise.all(toolboxes.splice(0).map((t) => t.close()));
  fakes.length = 0;
});

async function flow(id: string, server = 's'): Promise<Flow> {
  const loaded = await loadFlow({
    id,
    locale: 'en',
    mcpServers: { [server]: { command: 'node', args: ['server.js'] } },
    nodes: [{ id: 'main', tools: ['probe'] }],
  });
  return loaded.flow;
}

const ref = (f: Flow, tenant: string | null = null): FlowRef => ({ flow: f, dir: '/flows', tenant });

describe('DefaultToolbox catalogs', () => {
  it('keeps at most maxCatalogs, dropping the least recently used first', async () => {
    const box = toolbox(2);
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((id) => flow(id)));
    const first = box.catalog(ref(a!));
    await first;
    expect(box.catalog(ref(a!))).toBe(first);
    const ofB = box.catalog(ref(b!));
    expect(box.catalog(ref(a!))).toBe(first); // a is now more recent than b
    await box.catalog(ref(c!));
    expect(box.sizes.catalogs).toBe(2);
    expect(box.catalog(ref(a!))).toBe(first);
    const again = box.catalog(ref(b!));
    expect(again).not.toBe(ofB);
    await again;
    expect(box.sizes.catalogs).toBe(2);
    // Tenants never share a catalog: another tenant's same flow is a catalog of its own.
    expect(box.catalog(ref(b!, 'acme'))).not.toBe(again);
  });

  it('dropping a catalog closes no connection, and a failed load is not kept', async () => {
    const box = toolbox(1);
    const flaky = await flow('f', 'flaky');
    await expect(box.catalog(ref(flaky))).rejects.toThrow(/not yet/);
    expect(box.sizes.catalogs).toBe(0);
    const loaded = await box.catalog(ref(flaky));
    expect([...loaded.all.keys()]).toEqual(['probe']);
    await box.catalog(ref(await flow('other')));
    expect(box.sizes.catalogs).toBe(1);
    expect(fakes.some((f) => f.closed)).toBe(false);
    expect(box.sizes.connections).toBe(2);
  });

  it('keeps nothing of the flow but its servers: a large flow is freed once its run lets go of it', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const box = toolbox(8);
    // The flow lives only in this function, as in a run that has ended.
    const load = async (): Promise<WeakRef<Flow>> => {
      const { flow: big } = await loadFlow({
        id: 'big',
        locale: 'en',
        nodes: [{ id: 'main', instructions: 'x'.repeat(200_000), tools: [] }],
      });
      const loaded = await box.catalog(ref(big));
      expect(loaded.visible(big.nodes[0]!).has('builtin_node_finish')).toBe(true);
      return new WeakRef(big);
    };
    const held = await load();
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(held.deref()).toBeUndefined();
    expect(box.sizes.catalogs).toBe(1);
  });
});
