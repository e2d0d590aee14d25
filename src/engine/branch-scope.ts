import { AsyncLocalStorage } from 'node:async_hooks';
import type { ConversationMessage } from '../model/model.js';
import type { Branch, RunStateDoc } from '../records/state-doc.js';

/** What code running inside one branch of a run sees instead of the run's single node run. */
export interface BranchContext {
  readonly branch: Branch;
  /** The run's document with `nodeId`, `nodeRuns`, `node` and `loop` taken from the branch. */
  readonly view: RunStateDoc;
  /** The branch's conversation (its node run's messages). */
  messages: ConversationMessage[];
}

/** The document keys a branch has of its own; every other key is the run's. */
const OWN_KEYS = new Set<PropertyKey>(['nodeId', 'nodeRuns', 'node', 'loop']);

/** The conversation key of a branch's node run (as `nodeRunKey` of the run's single node run). */
export function branchKey(branch: Pick<Branch, 'nodeId' | 'nodeRuns'>): string {
  return `${branch.nodeId}#${branch.nodeRuns}`;
}

/**
 * The branches of one run session (docs/flows.md, "Parallel branches"): code that runs inside
 * `run(branch, …)` — a node loop, a code node, a person's response — reads and writes that branch's
 * node state, loop position and conversation through the session as if it were the run's only node
 * run, while branches run at the same time (AsyncLocalStorage carries which one across awaits).
 */
export class BranchScope {
  private readonly storage = new AsyncLocalStorage<BranchContext>();
  private readonly contexts = new WeakMap<Branch, BranchContext>();
  private readonly loaded = new Map<string, ConversationMessage[]>();

  constructor(private readonly root: RunStateDoc) {}

  /** The branch the calling code runs in, or undefined outside any branch. */
  current(): BranchContext | undefined {
    return this.storage.getStore();
  }

  /**
   * A node-level event emitted inside a map item's node run, with the item it belongs to (as its
   * node.started names it, docs/trace.md); any other event as it is.
   */
  withItem<T extends object>(payload: T): T {
    const item = this.current()?.branch.item;
    return item && 'nodeId' in payload && !('item' in payload)
      ? { ...payload, item: { of: item.of, index: item.index } }
      : payload;
  }

  /** Gives a branch the messages read from the store for it (when a session opens). */
  preload(branch: Branch, messages: ConversationMessage[]): void {
    this.loaded.set(branchKey(branch), messages);
  }

  /** Runs `task` inside `branch`. */
  run<T>(branch: Branch, task: () => Promise<T>): Promise<T> {
    return this.storage.run(this.contextOf(branch), task);
  }

  private contextOf(branch: Branch): BranchContext {
    const known = this.contexts.get(branch);
    if (known) return known;
    const view = new Proxy<RunStateDoc>(this.root, {
      get: (target, key, receiver): unknown =>
        OWN_KEYS.has(key)
          ? (Reflect.get(branch, key) as unknown)
          : (Reflect.get(target, key, receiver) as unknown),
      set: (target, key, value) =>
        OWN_KEYS.has(key) ? Reflect.set(branch, key, value) : Reflect.set(target, key, value),
    });
    const key = branchKey(branch);
    const context: BranchContext = { branch, view, messages: this.loaded.get(key) ?? [] };
    this.loaded.delete(key);
    this.contexts.set(branch, context);
    return context;
  }
}
