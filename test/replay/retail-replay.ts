import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FlowInput, ParamContract } from '../../src/domain/flow.js';
import type { ScriptedTurn } from '../../src/model/scripted.js';

// The replay of τ²-bench's retail tasks (test/fixtures/tau2-retail/README.md): the flow with the
// parameter contracts a careful operator writes, and the scripted model turns made from each task's
// gold actions.

/** The fixture folder: the server, db.json and tasks.json. */
export const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'tau2-retail');

/** One gold action of a task. */
export interface GoldAction {
  name: string;
  arguments: Record<string, unknown>;
}

/** A task as the fixture keeps it. */
export interface RetailTask {
  id: string;
  instructions: Record<string, string | null>;
  actions: GoldAction[];
}

/** The 114 retail tasks. */
export function loadTasks(): RetailTask[] {
  return JSON.parse(readFileSync(join(FIXTURE, 'tasks.json'), 'utf8')) as RetailTask[];
}

/** The parts of the database the replay reads. */
export interface RetailDb {
  users: Record<string, { orders: string[]; address: { address1: string } }>;
  orders: Record<string, { user_id: string; address: { address1: string } }>;
  products: Record<string, { product_id: string; variants: Record<string, unknown> }>;
}

/** The database the server starts every task from. */
export function loadDb(): RetailDb {
  return JSON.parse(readFileSync(join(FIXTURE, 'db.json'), 'utf8')) as RetailDb;
}

/**
 * The gold actions plus the lookups a real agent must have made and the gold list leaves out (it
 * lists the actions that matter, not every read: task 36 is a single write on an order the user never
 * named). Before each write, unless the trajectory already made them: `get_user_details` of the
 * customer, `get_order_details` of the order written, `get_product_details` of each new item's
 * product, and for an address neither in the profile nor said by the user, `get_order_details` of the
 * customer's orders up to the one shipped there (task 86: "your DC address … is in one of the
 * orders"). Reads change nothing, so the end state is the gold one; `inserted` counts them.
 */
export function withImpliedLookups(
  task: RetailTask,
  db: RetailDb,
): { actions: GoldAction[]; inserted: number } {
  const done = new Set<string>();
  const key = (a: GoldAction) => `${a.name} ${JSON.stringify(a.arguments)}`;
  const productOf = (item: string) =>
    Object.values(db.products).find((p) => Object.hasOwn(p.variants, item))?.product_id;
  const actions: GoldAction[] = [];
  let inserted = 0;
  const ensure = (name: string, args: Record<string, unknown>) => {
    const lookup = { name, arguments: args };
    if (done.has(key(lookup))) return;
    done.add(key(lookup));
    actions.push(lookup);
    inserted += 1;
  };
  for (const action of task.actions) {
    if (WRITES.has(action.name)) {
      const { order_id, user_id, new_item_ids } = action.arguments;
      const order = typeof order_id === 'string' ? db.orders[order_id] : undefined;
      const customer = typeof user_id === 'string' ? user_id : order?.user_id;
      if (customer) ensure('get_user_details', { user_id: customer });
      if (order) ensure('get_order_details', { order_id });
      for (const item of Array.isArray(new_item_ids) ? new_item_ids : []) {
        const product = productOf(String(item));
        if (product) ensure('get_product_details', { product_id: product });
      }
      const street = action.arguments.address1;
      const profile = customer ? db.users[customer] : undefined;
      if (
        typeof street === 'string' &&
        profile &&
        profile.address.address1 !== street &&
        !userWords(task).includes(street)
      ) {
        for (const id of profile.orders) {
          ensure('get_order_details', { order_id: id });
          if (db.orders[id]?.address.address1 === street) break;
        }
      }
    }
    done.add(key(action));
    actions.push(action);
  }
  return { actions, inserted };
}

/** The write tools of the domain (τ²-bench's ToolType.WRITE). */
export const WRITES = new Set([
  'cancel_pending_order',
  'exchange_delivered_order_items',
  'modify_pending_order_address',
  'modify_pending_order_items',
  'modify_pending_order_payment',
  'modify_user_address',
  'return_delivered_order_items',
]);

/** The user's words: what the simulated user knows and wants, as the run input. */
export function userWords(task: RetailTask): string {
  const { known_info, reason_for_call, task_instructions } = task.instructions;
  return [known_info, reason_for_call, task_instructions].filter((t) => t && t !== '.').join('\n');
}

const PAYMENT_IDS = '[payment_methods.*.id, payment_history.payment_method_id]';
const US_STATES = (
  'AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND ' +
  'OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY'
).split(' ');

// The contracts guard the writes (reads change nothing): ids the user gives or a lookup returned,
// list elements from the lookups, payment ids from the customer's profile or the order, an enum for
// the cancel reason, address fields from a profile or order address or the user's words.
const orderId: ParamContract = {
  source: ['user', 'evidence'],
  from: ['get_user_details', 'get_order_details'],
  path: '[orders, order_id]',
};
const userId: ParamContract = {
  source: ['evidence', 'user'],
  from: ['find_user_id_by_name_zip', 'find_user_id_by_email', 'get_user_details', 'get_order_details'],
};
const itemIds: ParamContract = { source: 'evidence', from: ['get_order_details'], path: 'items.item_id' };
const newItemIds: ParamContract = {
  source: ['evidence', 'user'],
  from: ['get_product_details', 'get_item_details'],
  path: '[variants.*.item_id, item_id]',
};
const paymentId: ParamContract = {
  source: 'evidence',
  from: ['get_user_details', 'get_order_details'],
  path: PAYMENT_IDS,
};
const addressField = (field: string): ParamContract => ({
  source: ['evidence', 'user'],
  from: ['get_user_details', 'get_order_details'],
  path: `address.${field}`,
});
const address: Record<string, ParamContract> = {
  address1: addressField('address1'),
  address2: addressField('address2'),
  city: addressField('city'),
  zip: addressField('zip'),
  state: { enum: US_STATES },
  country: { enum: ['USA'] },
};

/** The retail flow with careful contracts; `command`/`args` start the MCP server. */
export function retailFlow(server: {
  command: string;
  args: string[];
  env: Record<string, string>;
}): FlowInput {
  return {
    id: 'tau2-retail',
    locale: 'en',
    mcpServers: { retail: server },
    limits: { maxRounds: 100, fingerprintRepeats: 4 },
    tools: {
      cancel_pending_order: {
        params: { order_id: orderId, reason: { enum: ['no longer needed', 'ordered by mistake'] } },
      },
      exchange_delivered_order_items: {
        params: {
          order_id: orderId,
          item_ids: itemIds,
          new_item_ids: newItemIds,
          payment_method_id: paymentId,
        },
      },
      modify_pending_order_items: {
        params: {
          order_id: orderId,
          item_ids: itemIds,
          new_item_ids: newItemIds,
          payment_method_id: paymentId,
        },
      },
      modify_pending_order_payment: { params: { order_id: orderId, payment_method_id: paymentId } },
      return_delivered_order_items: {
        params: { order_id: orderId, item_ids: itemIds, payment_method_id: paymentId },
      },
      modify_pending_order_address: { params: { order_id: orderId, ...address } },
      modify_user_address: { params: { user_id: userId, ...address } },
    },
    nodes: [
      {
        id: 'agent',
        instructions: 'Help the customer with their retail request, following the store policy.',
        tools: [
          'calculate',
          'find_user_id_by_name_zip',
          'find_user_id_by_email',
          'get_order_details',
          'get_product_details',
          'get_item_details',
          'get_user_details',
          'list_all_product_types',
          'transfer_to_human_agents',
          ...WRITES,
        ],
      },
    ],
  };
}

/**
 * The scripted model's turns for a list of actions: a read is one call; a write is the call (gated),
 * the approval request, then the same call again once approved. `end` closes the node.
 */
export function turnsOf(actions: GoldAction[], end: 'finish' | 'fail' = 'finish'): ScriptedTurn[] {
  const turns: ScriptedTurn[] = [];
  for (const action of actions) {
    const call = { tool: action.name, args: action.arguments };
    turns.push({ calls: [call] });
    if (!WRITES.has(action.name)) continue;
    turns.push({
      calls: [{ tool: 'builtin_node_approval', args: { tool: action.name, summary: action.name } }],
    });
    turns.push({ calls: [call] });
  }
  const last =
    end === 'finish'
      ? { tool: 'builtin_node_finish', args: { summary: 'done' } }
      : { tool: 'builtin_node_fail', args: { reason: 'stopped by the replay' } };
  turns.push({ calls: [last] });
  return turns;
}
