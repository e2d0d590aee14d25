import { defineTool, type LocalTool } from '../../src/tools/tool.js';

/** Local tools of the fast test flows: a read and a gated write, with the writes they executed. */
export function ticketTools(): { tools: LocalTool[]; created: string[]; gate: Gate } {
  const created: string[] = [];
  const gate = new Gate();
  const tools = [
    defineTool<{ q?: string }>({
      name: 'ticket_list',
      description: 'List tickets',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
      execute: async ({ q }) => {
        if (q === 'slow') await gate.wait();
        return { tickets: [{ id: 't1', title: 'printer' }] };
      },
    }),
    defineTool<{ title: string }>({
      name: 'ticket_create',
      description: 'Create a ticket',
      write: true,
      inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
      execute: ({ title }) => {
        created.push(title);
        return { id: `t${created.length + 1}`, title };
      },
    }),
  ] as LocalTool[];
  return { tools, created, gate };
}

/** A latch a tool call can wait on, opened by the test. */
export class Gate {
  private opened = false;
  private waiters: (() => void)[] = [];
  private arrivedWaiters: (() => void)[] = [];
  arrived = 0;

  /** Waits until `open` (a call that reached the gate). */
  wait(): Promise<void> {
    this.arrived += 1;
    for (const w of this.arrivedWaiters.splice(0)) w();
    if (this.opened) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Resolves once a call is waiting at the gate. */
  reached(): Promise<void> {
    if (this.arrived > 0) return Promise.resolve();
    return new Promise((resolve) => this.arrivedWaiters.push(resolve));
  }

  open(): void {
    this.opened = true;
    for (const w of this.waiters.splice(0)) w();
  }
}

/** A flow that lists, writes after approval, and finishes. */
export const TICKETS_FLOW = `id: tickets
locale: en
model: scripted:./turns/tickets.yaml
tools:
  ticket_create: { write: true }
input:
  type: object
  properties: { text: { type: string } }
  required: [text]
nodes:
  - id: main
    tools: [ticket_list, ticket_create]
`;

export const TICKETS_TURNS = `turns:
  - { calls: [{ tool: ticket_list, args: {} }] }
  - { calls: [{ tool: ticket_create, args: { title: printer } }] }
  - { calls: [{ tool: builtin_node_approval, args: { tool: ticket_create, summary: open a ticket } }] }
  - { calls: [{ tool: ticket_create, args: { title: printer } }] }
  - { calls: [{ tool: builtin_node_finish, args: { summary: done } }] }
`;

/** A flow that asks a question first. */
export const ASK_FLOW = `id: ask
locale: en
model: scripted:./turns/ask.yaml
nodes:
  - id: main
    tools: [ticket_list]
`;

export const ASK_TURNS = `turns:
  - { calls: [{ tool: builtin_node_follow_up, args: { question: Which printer? } }] }
  - { calls: [{ tool: builtin_node_finish, args: { summary: done } }] }
`;

/** A two-turn flow: one read, finish (for many concurrent runs). */
export const QUICK_FLOW = `id: quick
locale: en
model: scripted:./turns/quick.yaml
nodes:
  - id: main
    tools: [ticket_list]
`;

export const QUICK_TURNS = `turns:
  - { calls: [{ tool: ticket_list, args: {} }] }
  - { calls: [{ tool: builtin_node_finish, args: { summary: done } }] }
`;

/** A flow whose first read waits at the tools' gate (a run "in the middle of a step"). */
export const SLOW_FLOW = `id: slow
locale: en
model: scripted:./turns/slow.yaml
nodes:
  - id: main
    tools: [ticket_list]
`;

export const SLOW_TURNS = `turns:
  - { calls: [{ tool: ticket_list, args: { q: slow } }] }
  - { calls: [{ tool: builtin_node_finish, args: { summary: done } }] }
`;

/** Every flow file above, for a `--flows` folder. */
export const FLOW_FILES: Record<string, string> = {
  'tickets.yaml': TICKETS_FLOW,
  'turns/tickets.yaml': TICKETS_TURNS,
  'ask.yaml': ASK_FLOW,
  'turns/ask.yaml': ASK_TURNS,
  'quick.yaml': QUICK_FLOW,
  'turns/quick.yaml': QUICK_TURNS,
  'slow.yaml': SLOW_FLOW,
  'turns/slow.yaml': SLOW_TURNS,
};
