import { FlowSchema, type Flow, type FlowInput } from '../../../src/domain/flow.js';
import { newNodeState, newRunState, type NodeState, type RunState } from '../../../src/records/run-state.js';
import type { Observation } from '../../../src/domain/observation.js';
import { MemoryLogger } from '../../../src/log/logger.js';
import { buildCatalog } from '../../../src/tools/catalog.js';
import { ToolInvoker } from '../../../src/tools/invoker.js';
import type {
  CallInput,
  CallReport,
  CallServices,
  DelegateService,
  LookBackEvent,
  ToolInvokerPort,
} from '../../../src/tools/call.js';
import { createCallInput } from '../../../src/tools/context.js';
import { applyChanges } from '../../../src/records/changes.js';
import type { Resolution } from '../../../src/tools/builtin/resolution.js';
import { chain, type After, type Check, type Settled, type Terminal } from '../../../src/tools/compose.js';
import { callReport } from '../../../src/tools/report.js';
import type { CallOutcome, ReadyCall } from '../../../src/tools/stages.js';
import { createPipeline } from '../../../src/tools/pipeline.js';
import { invokeStep } from '../../../src/tools/guards/invoke.js';
import { defaultBuiltins } from '../../../src/tools/builtin/registry.js';
import { defineTool, type LocalTool, type ToolDescriptor } from '../../../src/tools/tool.js';

/** A business reply of the demo cloud. */
export interface Reply {
  code: number | string;
  message: string;
  data?: unknown;
}

/** One call a local cloud tool received. */
export interface SeenCall {
  tool: string;
  args: Record<string, unknown>;
  idempotencyKey?: string;
}

/**
 * In-process twins of the demo cloud's tools (same names, schemas, annotations and replies), as local
 * tools through the real ToolInvoker. `hangCreate` makes web_site_create wait for its abort signal (a
 * timeout) after or before it created the site.
 */
export function cloudTools(options: { hangCreate?: 'after-create' | 'before-create' } = {}) {
  const spaces = [
    { spaceId: 'sp_1', name: '默认空间' },
    { spaceId: 'sp_2', name: '测试空间' },
  ];
  const sites: {
    siteId: string;
    spaceId: string;
    name: string;
    plan: string;
    status: string;
    gets: number;
  }[] = [];
  const seen: SeenCall[] = [];
  let next = 1;
  const ok = (data: unknown): Reply => ({ code: 0, message: 'ok', data });
  const view = (s: (typeof sites)[number]) => ({
    siteId: s.siteId,
    spaceId: s.spaceId,
    name: s.name,
    plan: s.plan,
    status: s.status,
  });
  const tools: LocalTool[] = [
    defineTool({
      name: 'space_list',
      description: 'List the spaces of the current account.',
      inputSchema: { type: 'object', properties: {} },
      execute: (args) => (seen.push({ tool: 'space_list', args }), ok(spaces)),
    }),
    defineTool<{ spaceId: string }>({
      name: 'web_site_list',
      description: 'List the web sites of a space.',
      inputSchema: { type: 'object', properties: { spaceId: { type: 'string' } }, required: ['spaceId'] },
      execute: (args) => {
        seen.push({ tool: 'web_site_list', args });
        if (!spaces.some((s) => s.spaceId === args.spaceId))
          return { code: 'system.40401', message: '空间不存在' };
        return ok(sites.filter((s) => s.spaceId === args.spaceId).map(view));
      },
    }),
    defineTool<{ siteId: string }>({
      name: 'web_site_get',
      description: 'Get one web site.',
      inputSchema: { type: 'object', properties: { siteId: { type: 'string' } }, required: ['siteId'] },
      execute: (args) => {
        seen.push({ tool: 'web_site_get', args });
        const site = sites.find((s) => s.siteId === args.siteId);
        if (!site) return { code: 'system.40402', message: '站点不存在' };
        site.gets += 1;
        if (site.gets >= 2) site.status = 'ACTIVE';
        return ok(view(site));
      },
    }),
    defineTool<{ spaceId: string; name: string; plan?: string }>({
      name: 'web_site_create',
      description: 'Create a web site in a space.',
      write: true,
      inputSchema: {
        type: 'object',
        properties: {
          spaceId: { type: 'string' },
          name: { type: 'string' },
          plan: { type: 'string', enum: ['basic', 'pro'] },
        },
        required: ['spaceId', 'name'],
      },
      execute: async (args, context) => {
        seen.push({
          tool: 'web_site_create',
          args,
          ...(context.idempotencyKey ? { idempotencyKey: context.idempotencyKey } : {}),
        });
        const hang = () =>
          new Promise((_, fail) =>
            context.signal.addEventListener('abort', () => fail(new Error('aborted'))),
          );
        if (options.hangCreate === 'before-create') await hang();
        if (sites.some((s) => s.spaceId === args.spaceId && s.name === args.name))
          return { code: 'system.50001', message: '站点名称已存在' };
        const site = {
          siteId: `site_${next++}`,
          spaceId: args.spaceId,
          name: args.name,
          plan: args.plan ?? 'basic',
          status: 'CREATING',
          gets: 0,
        };
        sites.push(site);
        if (options.hangCreate === 'after-create') await hang();
        return ok(view(site));
      },
    }),
  ];
  return { tools, seen, sites, spaces };
}

/** The site-builder flow of examples/, trimmed to what the guards read (no MCP servers: local twins). */
export const SITE_FLOW: FlowInput = {
  id: 'site-builder',
  tools: {
    web_site_create: {
      write: true,
      params: {
        spaceId: { source: 'evidence', from: ['space_list'], path: 'data.spaceId' },
        name: { source: 'user', required: true },
        plan: { enum: ['basic', 'pro'] },
      },
      response: { okPath: 'code', okValues: [0], codePath: 'code', messagePath: 'message' },
      pending: "result.data.status = 'CREATING'",
      verify: {
        tool: 'web_site_get',
        args: { siteId: 'result.data.siteId' },
        done: "verify.data.status = 'ACTIVE'",
      },
      recover: {
        tool: 'web_site_list',
        args: { spaceId: 'args.spaceId' },
        found: '$count(verify.data[name = $$.args.name]) > 0',
      },
    },
    web_site_list: { response: { okPath: 'code', okValues: [0], codePath: 'code', messagePath: 'message' } },
    web_site_get: { response: { okPath: 'code', okValues: [0], codePath: 'code', messagePath: 'message' } },
  },
  nodes: [
    {
      id: 'create',
      tools: ['space_list', 'web_site_list', 'web_site_create', 'web_site_get'],
      outputs: {
        siteId: {
          required: true,
          sources: ['evidence'],
          from: ['web_site_create', 'web_site_list', 'web_site_get'],
        },
      },
    },
  ],
};

/** Any check or after-step, for partial chains in tests. */
export type AnyCheck = Check<never, object>;
export type AnyAfter = After<never>;

/** A terminal that answers `observation` as if the call was (or was not) sent. */
export function answering(observation: Observation, executed = true) {
  return (): Promise<CallOutcome> => Promise.resolve({ observation, executed });
}

/** Options of `harness`. */
export interface HarnessOptions {
  flow?: FlowInput;
  nodeId?: string;
  localTools?: LocalTool[];
  /** Extra real tools (e.g. MCP descriptors) besides the local ones. */
  tools?: ToolDescriptor[];
  /** Default: the real ToolInvoker over `localTools`. */
  invoker?: ToolInvokerPort;
  input?: unknown;
  delegate?: DelegateService;
  runId?: string;
}

/** A run and node state plus services, to drive calls through the pipeline or through single guards. */
export interface Harness {
  flow: Flow;
  run: RunState;
  node: NodeState;
  logger: MemoryLogger;
  services: CallServices;
  lookBacks: LookBackEvent[];
  /** In-flight marks seen by each checkpoint (write-ahead proof). */
  checkpoints: { inFlight: string[] }[];
  visible: ReadonlyMap<string, ToolDescriptor>;
  tools: ReadonlyMap<string, ToolDescriptor>;
  /** A fresh call input (`args` as an object is JSON-encoded; a string is sent raw). */
  ctx(tool: string, args?: Record<string, unknown> | string, callId?: string): CallInput;
  /** One call through the full pipeline: its input, its report and the report's observation. */
  call(tool: string, args?: Record<string, unknown> | string): Promise<Called>;
  /**
   * One call through the given steps only: `checks` (or `{ checks, after }`), then the real invoke step
   * (or `terminal`), then the after-steps.
   */
  through(
    steps: AnyCheck[] | { checks: AnyCheck[]; after: AnyAfter[] },
    tool: string,
    args?: Record<string, unknown> | string,
    terminal?: (call: ReadyCall) => Promise<CallOutcome>,
  ): Promise<Called>;
}

/** One call as a harness ran it. */
export interface Called {
  obs: Observation;
  ctx: CallInput;
  report: CallReport;
}

const NO_PROVENANCE = { provenance: {}, userProvenance: {}, matches: {} };

/** Builds a harness over a flow (default SITE_FLOW with the cloud twins). */
export function harness(options: HarnessOptions = {}): Harness {
  const flow = FlowSchema.parse(options.flow ?? SITE_FLOW);
  const nodeId = options.nodeId ?? flow.nodes[0]!.id;
  const localTools = options.localTools ?? [];
  const all = [...localTools.map((t) => t.descriptor), ...(options.tools ?? [])];
  const catalog = buildCatalog({ flow, nodeId, tools: all });
  const run = newRunState(
    options.runId ?? 'run_test',
    options.input ?? { text: '在默认空间创建一个叫 官网 的站点' },
  );
  const node = newNodeState(nodeId);
  const logger = new MemoryLogger();
  const lookBacks: LookBackEvent[] = [];
  const checkpoints: { inFlight: string[] }[] = [];
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const services: CallServices = {
    invoker: options.invoker ?? new ToolInvoker({ localTools }),
    checkpoint: () => {
      checkpoints.push({ inFlight: run.inFlight.map((w) => w.tool) });
      return Promise.resolve();
    },
    now: () => new Date((clock += 1000)),
    logger,
    onLookBack: (event) => void lookBacks.push(event),
    ...(options.delegate ? { delegate: options.delegate } : {}),
  };
  let seq = 0;
  const ctx = (
    tool: string,
    args: Record<string, unknown> | string = {},
    callId = `call_${++seq}`,
  ): CallInput =>
    createCallInput({
      call: { callId, tool, rawArgs: typeof args === 'string' ? args : JSON.stringify(args) },
      flow,
      nodeId,
      run,
      node,
      visible: catalog.visible,
      tools: catalog.tools,
      services,
    });
  const pipeline = createPipeline();
  return {
    flow,
    run,
    node,
    logger,
    services,
    lookBacks,
    checkpoints,
    visible: catalog.visible,
    tools: catalog.tools,
    ctx,
    async call(tool, args) {
      const c = ctx(tool, args);
      const report = await pipeline(c);
      return { obs: report.observation, ctx: c, report };
    },
    async through(steps, tool, args, terminal) {
      const c = ctx(tool, args);
      const { checks, after } = Array.isArray(steps) ? { checks: steps, after: [] } : steps;
      // A partial chain: the types of the full pipeline do not hold here, so the steps run untyped.
      let built = chain<object>();
      for (const check of checks) built = built.check(check as Check<object, object>);
      let invoking = built.invoke((terminal ?? invokeStep(defaultBuiltins)) as Terminal<object>);
      for (const step of after) invoking = invoking.after(step as After<object>);
      // A check run without the parameter contract before it sees no provenance, as in a call without params.
      const settled = (await invoking.run({ ...NO_PROVENANCE, ...c })) as Settled<ReadyCall>;
      const report = callReport(settled);
      return { obs: report.observation, ctx: c, report };
    },
  };
}

/** The reason, next step and zh-CN/en message of an observation, for compact assertions. */
/** A person's response applied as the engine applies it (its changes), returning its observation. */
export function respond(h: { run: RunState; node: NodeState }, resolution: Resolution): Observation {
  applyChanges({ run: h.run, node: h.node }, resolution.changes);
  return resolution.observation;
}

export function parts(obs: Observation) {
  return {
    outcome: obs.outcome.name,
    code: obs.errorCode,
    reason: obs.reason,
    next: obs.next,
    message: obs.message('zh-CN'),
  };
}
