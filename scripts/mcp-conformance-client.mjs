#!/usr/bin/env node
// The MCP conformance suite's client under test (docs/mcp.md, "Conformance"): run the way the suite
// runs a client —
//   MCP_CONFORMANCE_SCENARIO=tools_call node scripts/mcp-conformance-client.mjs http://localhost:PORT/mcp
// — it writes a one-node flow on the scenario's server and a scripted model that calls the
// scenario's tools, then drives the built CLI (`agent-runtime run`, and `approve` or `answer` in a
// second process when the write gate stops a call or the server asks the person). Exit 0 when the run completed, else 1. The CLI is
// dist/src/cli/main.js next to this script, or AGENT_RUNTIME_CLI.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const cli =
  process.env.AGENT_RUNTIME_CLI ??
  resolve(dirname(new URL(import.meta.url).pathname), '../dist/src/cli/main.js');

/**
 * What the model does in each scenario: the tools it calls (in order), whether a call goes
 * through the write gate (approved by a second process) instead of being declared a read, and whether
 * the server asks the person during a call (answered by a second process, the call then sent again).
 */
const PLANS = {
  initialize: { calls: [] },
  tools_call: { calls: [{ tool: 'add_numbers', args: { a: 5, b: 3 } }], gated: true },
  // A person answers the server's form while its request is held open (`elicitationHoldSeconds`):
  // the `run` process logs the held question, a second process answers it (`answer RUN '{}'`, the
  // schema's defaults filled in), and the answer goes back on the server's first request.
  'elicitation-sep1034-client-defaults': {
    calls: [{ tool: 'test_client_elicitation_defaults', args: {} }],
    holdSeconds: 15,
  },
  'sse-retry': { calls: [{ tool: 'test_reconnection', args: {} }] },
  // 2026-07-28 multi-round-trip requests: two tools answer `input_required` (a question for the person,
  // with and without request state); the run suspends, the person answers (`answer`, a second process)
  // and the call is retried with the answer and the state. The other two complete at once.
  'sep-2322-client-request-state': {
    calls: [
      { tool: 'test_mrtr_echo_state', args: {}, elicits: true },
      { tool: 'test_mrtr_no_state', args: {}, elicits: true },
      { tool: 'test_mrtr_unrelated', args: {} },
      { tool: 'test_mrtr_no_result_type', args: {} },
    ],
  },
  'request-metadata': { calls: [] },
  // The client lists the tools (one has a `$ref` to a network URL, which must never be fetched).
  'json-schema-ref-no-deref': { calls: [] },
  'http-standard-headers': { calls: [{ tool: 'test_headers', args: {} }] },
  // The skills extension is not supported: the runtime never lists skills nor reads a skill's files,
  // so nothing is fetched ahead of need (the suite can only report its check skipped).
  'sep-2640-client-no-prefetch': { calls: [] },
  // Tools whose x-mcp-header annotations are invalid are left out of the catalog; the valid one is called.
  'http-invalid-tool-headers': { calls: [{ tool: 'valid_tool', args: { region: 'us-west1' } }] },
  // The model echoes the input schema it was given for the focal tool (`schemaArgs`): what reaches the
  // server is the schema as the runtime handed it to the model, after the runtime validated the call.
  'json-schema-2020-12-preservation': {
    sees: ['json_schema_2020_12_tool'],
    calls: [{ tool: 'json_schema_echo', args: {}, schemaArgs: { schema: 'json_schema_2020_12_tool' } }],
  },
  // The first call is refused 403 insufficient_scope: the run fails TOOLS_UNAUTHORIZED, the person
  // authorizes the wider scope (`mcp login`), and `retry` asks the model again, which calls again.
  'auth/scope-step-up': {
    calls: [
      { tool: 'test-tool', args: {} },
      { tool: 'test-tool', args: {} },
    ],
  },
};
/** Every auth scenario's server exports one tool, `test-tool`. */
const AUTH_PLAN = { calls: [{ tool: 'test-tool', args: {} }] };

/**
 * A scenario that names the calls to make in its context (`toolCalls`): the model makes them. An
 * argument given as null is left out, as a model following the tool's schema does (the runtime
 * refuses a null that the schema does not allow before anything is sent; "null or not provided"
 * are the same to the server).
 */
function contextPlan() {
  const calls = Array.isArray(context.toolCalls) ? context.toolCalls : null;
  const given = (args) => Object.fromEntries(Object.entries(args ?? {}).filter(([, v]) => v !== null));
  return calls ? { calls: calls.map((c) => ({ tool: c.name, args: given(c.arguments) })) } : null;
}

function planFor(name) {
  const plan = PLANS[name] ?? (name.startsWith('auth/') ? AUTH_PLAN : contextPlan());
  if (!plan) throw new Error(`mcp-conformance-client: unknown scenario ${JSON.stringify(name)}`);
  return plan;
}

const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');

/**
 * The server entry's `auth` for an auth scenario (docs/mcp.md, "Authorization"): a person authorizes
 * (`mcp login`) with dynamic registration, a client id metadata document, or the pre-registered client
 * of the scenario's context; client credentials (secret or private key) and a workload's JWT need no person. Secrets go
 * through the environment as `${VAR}`.
 */
function authFor(name) {
  if (!name.startsWith('auth/')) return undefined;
  if (name === 'auth/basic-cimd')
    return { clientMetadataUrl: 'https://conformance-test.local/client-metadata.json' };
  const secret = context.client_secret ? { clientSecret: '${CONFORMANCE_CLIENT_SECRET}' } : {};
  if (context.idp_token_endpoint) {
    // Enterprise-managed: the IdP's ID token is exchanged for an authorization grant (no person).
    const idp = {
      tokenEndpoint: context.idp_token_endpoint,
      clientId: context.idp_client_id,
      idToken: '${CONFORMANCE_IDP_ID_TOKEN}',
    };
    return { grant: 'cross_app_access', clientId: context.client_id, ...secret, idp };
  }
  if (context.valid_jwt) {
    // Workload identity: the platform's JWT is the grant (RFC 7523), no person.
    return { grant: 'jwt_bearer', clientId: context.client_id, assertion: '${CONFORMANCE_WIF_JWT}' };
  }
  if (name.startsWith('auth/client-credentials-')) {
    const key = context.private_key_pem ? { privateKey: '${CONFORMANCE_PRIVATE_KEY}' } : {};
    const alg = context.signing_algorithm ? { signingAlgorithm: context.signing_algorithm } : {};
    return { grant: 'client_credentials', clientId: context.client_id, ...secret, ...key, ...alg };
  }
  return context.client_id ? { clientId: context.client_id, ...secret } : {};
}

/** The flow: one node seeing the plan's tools (those it calls and those it only reads), reads unless gated. */
function flowFor(plan) {
  const names = [...plan.calls.map((c) => c.tool), ...(plan.sees ?? [])];
  const tools = Object.fromEntries(names.map((name) => [name, { write: plan.gated === true }]));
  return {
    id: 'mcp-conformance',
    version: 1,
    locale: 'en',
    model: 'scripted:./turns.yaml',
    mcpServers: {
      server: {
        url,
        ...(authFor(scenario) ? { auth: authFor(scenario) } : {}),
        ...(plan.holdSeconds ? { elicitationHoldSeconds: plan.holdSeconds } : {}),
      },
    },
    limits: { toolTimeoutMs: 20_000 },
    tools,
    nodes: [{ id: 'main', instructions: `Conformance scenario ${scenario}.`, tools: Object.keys(tools) }],
  };
}

/** The scripted turns: each call (a gated one first refused, then approved, then sent again), then finish. */
function turnsFor(plan) {
  const turns = [];
  // `elicits` is the driver's; the rest (tool, args, schemaArgs) is the scripted model's call.
  for (const { elicits, ...call } of plan.calls) {
    turns.push({ node: 'main', calls: [call] });
    if (plan.elicits || elicits) turns.push({ node: 'main', calls: [call] });
    if (plan.gated) {
      const summary = `call ${call.tool} for the conformance suite`;
      turns.push({
        node: 'main',
        calls: [{ tool: 'builtin_node_approval', args: { tool: call.tool, summary } }],
      });
      turns.push({ node: 'main', calls: [call] });
    }
  }
  turns.push({ node: 'main', calls: [{ tool: 'builtin_node_finish', args: { summary: 'done' } }] });
  return { turns };
}

const secretKey = randomBytes(32).toString('hex');

/** The CLI's environment: this run's credential key and folder, the scenario's secrets. */
function cliEnv(dir) {
  return {
    ...process.env,
    AGENT_RUNTIME_LOG: process.env.AGENT_RUNTIME_LOG ?? 'warn',
    AGENT_RUNTIME_SECRET_KEY: secretKey,
    AGENT_RUNTIME_MCP_AUTH_DIR: join(dir, 'mcp-auth'),
    CONFORMANCE_CLIENT_SECRET: context.client_secret ?? '',
    CONFORMANCE_PRIVATE_KEY: context.private_key_pem ?? '',
    CONFORMANCE_IDP_ID_TOKEN: context.idp_id_token ?? '',
    CONFORMANCE_WIF_JWT: context.valid_jwt ?? '',
  };
}

/**
 * `cliRun` for a run whose server's question is held open: the CLI runs in the background (logging at
 * info, which names the held question's run), and each question it holds is answered by a person in a
 * second process (`answer RUN '{}'`: the form as it is, with its defaults) while the first one waits.
 */
function cliRunAnswering(dir, args) {
  const child = spawn(
    process.execPath,
    [cli, ...args, '--db', `sqlite:${join(dir, 'runtime.db')}`, '--json'],
    { cwd: dir, env: { ...cliEnv(dir), AGENT_RUNTIME_LOG: 'info' } },
  );
  let stdout = '';
  let stderr = '';
  const answers = [];
  child.stdout.on('data', (chunk) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk) => {
    stderr += chunk.toString();
    const held = [...stderr.matchAll(/MCP question held open for an answer runId=\S+/g)];
    // One answer per question held (a question is logged once, on a whole line).
    for (const found of held.slice(answers.length))
      answers.push(answerLater(dir, found[0].slice(found[0].indexOf('=') + 1)));
  });
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', async (code) => {
      await Promise.all(answers);
      process.stderr.write(stderr);
      process.stdout.write(stdout);
      let summary = null;
      try {
        summary = JSON.parse(stdout);
      } catch {
        summary = null;
      }
      done({ code, summary, stderr });
    });
  });
}

/** `answer RUN '{}'` in a second process, as a person at another terminal would type it. */
function answerLater(dir, runId) {
  const child = spawn(
    process.execPath,
    [cli, 'answer', runId, '{}', '--db', `sqlite:${join(dir, 'runtime.db')}`, '--json'],
    { cwd: dir, env: cliEnv(dir), stdio: ['ignore', 'ignore', 'inherit'] },
  );
  return new Promise((done) => child.on('close', done));
}

function cliRun(dir, args) {
  const result = spawnSync(
    process.execPath,
    [cli, ...args, '--db', `sqlite:${join(dir, 'runtime.db')}`, '--json'],
    {
      cwd: dir,
      encoding: 'utf8',
      env: cliEnv(dir),
    },
  );
  process.stderr.write(result.stderr ?? '');
  process.stdout.write(result.stdout ?? '');
  if (result.error) throw result.error;
  let summary = null;
  try {
    summary = JSON.parse(result.stdout);
  } catch {
    summary = null;
  }
  return { code: result.status, summary, stderr: result.stderr ?? '' };
}

/**
 * `agent-runtime mcp login flow.yaml server`, playing the person's browser: opens each URL it prints
 * (the test authorization server redirects at once; a server that moved to another authorization
 * server meanwhile makes the login print a second one) and follows the redirect to the CLI's loopback.
 */
async function login(dir) {
  const child = spawn(process.execPath, [cli, 'mcp', 'login', 'flow.yaml', 'server'], {
    cwd: dir,
    env: cliEnv(dir),
  });
  let err = '';
  let printed = false;
  const opened = new Set();
  const visits = [];
  const visit = async (url) => {
    try {
      const answer = await fetch(url, { redirect: 'manual' });
      const location = answer.headers.get('location');
      if (location) await (await fetch(location)).text();
    } catch (error) {
      err += `${error.message}\n`;
    }
  };
  const done = new Promise((resolve) => child.on('close', resolve));
  child.stderr.on('data', (chunk) => {
    err += chunk.toString();
    for (const found of err.matchAll(/^\s+(http\S+)$/gm)) {
      if (opened.has(found[1])) continue;
      opened.add(found[1]);
      printed = true;
      visits.push(visit(found[1]));
    }
  });
  const code = await done;
  await Promise.all(visits);
  if (!printed) err += 'mcp login ended without printing a URL\n';
  process.stderr.write(err);
  return code;
}

const needsLogin = (summary) => summary?.status === 'failed' && summary.reason === 'TOOLS_UNAUTHORIZED';
// `run` checks the flow's servers before it stores a run: an unauthorized one is refused (exit 2).
const refusedUnauthorized = (code, stderr) => code === 2 && /needs authorization/.test(stderr);

async function main() {
  const plan = planFor(scenario);
  const dir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  try {
    writeFileSync(join(dir, 'flow.yaml'), JSON.stringify(flowFor(plan), null, 2));
    writeFileSync(join(dir, 'turns.yaml'), JSON.stringify(turnsFor(plan), null, 2));
    const runArgs = ['run', 'flow.yaml', '--input', `conformance ${scenario}`];
    const start = () => cliRun(dir, runArgs);
    let { code, summary, stderr } = plan.holdSeconds ? await cliRunAnswering(dir, runArgs) : start();
    for (let i = 0; i < 5; i += 1) {
      if (refusedUnauthorized(code, stderr) && (await login(dir)) === 0)
        ({ code, summary, stderr } = start());
      else if (code === 3 && summary?.suspension?.pending?.elicitation)
        // The server's form, accepted as it is: the client fills in the schema's defaults.
        ({ code, summary, stderr } = cliRun(dir, ['answer', summary.runId, '{}']));
      else if (code === 3 && summary?.suspension?.kind === 'APPROVAL')
        ({ code, summary, stderr } = cliRun(dir, ['approve', summary.runId, '--comment', 'conformance']));
      else if (needsLogin(summary) && (await login(dir)) === 0)
        ({ code, summary, stderr } = cliRun(dir, ['retry', summary.runId]));
      else break;
    }
    return code === 0 ? 0 : 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
