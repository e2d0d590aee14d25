import { loadFlow } from '../../src/flow/load.js';
import { createProviderRegistry, type Env } from '../../src/model/providers.js';
import type { AiSdkModelOptions } from '../../src/model/ai-sdk/adapter.js';
import { createRuntime, type Runtime } from '../../src/runtime/create.js';
import type { StoredEvent } from '../../src/store/store.js';
import { defineTool } from '../../src/tools/tool.js';
import type { Turn } from '../../src/testing/fake-model/wire.js';
import { providerSetup } from './play.js';
import {
  startStrictFake,
  type FakeKind,
  type Play,
  type StrictFake,
} from '../../src/testing/fake-model/server.js';

/** A runtime (memory store, local tools) whose model is a strict fake of `kind`. */
export interface Harness {
  runtime: Runtime;
  fake: StrictFake;
  flow: Awaited<ReturnType<typeof loadFlow>>;
  /** Real executions of the write tool. */
  orders: unknown[];
  close(): Promise<void>;
}

/** The flow of the in-process provider tests: one node that looks an item up and creates an order (a gated write). */
export function orderFlow(model: string) {
  return {
    id: 'orders',
    locale: 'en',
    model,
    nodes: [
      {
        id: 'order',
        instructions: 'Create the order the user asks for.',
        tools: ['item_lookup', 'order_create'],
        outputs: { orderId: { required: true, sources: ['evidence'], from: ['order_create'] } },
      },
    ],
  };
}

/** Starts a strict fake of `kind` playing `play` and a runtime reaching it through the provider registry. */
export async function harness(
  kind: FakeKind,
  play: Play,
  options: { stream?: boolean; env?: Env; model?: AiSdkModelOptions; store?: string } = {},
): Promise<Harness> {
  const fake = await startStrictFake(kind, play);
  const { model, env } = providerSetup(kind, fake.url, fake.key, options.stream ?? false);
  delete env.AGENT_RUNTIME_MODEL_MAX_RETRIES;
  const orders: unknown[] = [];
  const lookup = defineTool<{ id: number }>({
    name: 'item_lookup',
    description: 'Find an item by id',
    inputSchema: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
    execute: ({ id }) => ({ id, name: `item-${id}`, price: 5 }),
  });
  const create = defineTool<{ itemId: number; quantity?: number }>({
    name: 'order_create',
    description: 'Create an order',
    write: true,
    inputSchema: {
      type: 'object',
      properties: { itemId: { type: 'number' }, quantity: { type: 'integer' } },
      required: ['itemId'],
    },
    execute: (args) => {
      orders.push(args);
      return { orderId: `o-${orders.length}` };
    },
  });
  const flow = await loadFlow(orderFlow(model), { knownTools: ['item_lookup', 'order_create'] });
  const providers = createProviderRegistry({
    env: { ...env, ...options.env },
    ...(options.model ? { model: options.model } : {}),
  });
  const runtime = createRuntime({
    store: options.store ?? 'memory',
    tools: [lookup, create],
    logger: false,
    providers,
  });
  return {
    runtime,
    fake,
    flow,
    orders,
    close: async () => {
      await runtime.close();
      await fake.close();
    },
  };
}

/** A run's trace. */
export async function traceOf(runtime: Runtime, runId: string): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const event of runtime.events(runId, { follow: false })) events.push(event);
  return events;
}

const call = (id: string, name: string, args: unknown) => ({ id, name, args: JSON.stringify(args) });

/** The order story: look up, write (gated), ask approval, [approve], write, output + finish. */
export const ORDER_STORY: Turn[] = [
  { text: 'Let me look the item up.', calls: [call('call_1', 'item_lookup', { id: 7 })] },
  { calls: [call('call_2', 'order_create', { itemId: 7, quantity: 2 })] },
  {
    calls: [call('call_3', 'builtin_node_approval', { tool: 'order_create', summary: 'Order 2 of item 7' })],
  },
  { calls: [call('call_4', 'order_create', { itemId: 7, quantity: 2 })] },
  {
    text: 'Done.',
    calls: [
      call('call_5', 'builtin_output_set', {
        key: 'orderId',
        value: 'o-1',
        sourceType: 'evidence',
        sourceRef: 'ev_2',
      }),
      call('call_6', 'builtin_node_finish', { summary: 'Ordered 2 of item 7.' }),
    ],
  },
].map((turn, i) => ({ ...turn, usage: { input: 100 * (i + 1), output: 10 * (i + 1) } }));
