import { isStdioServer, type Flow, type StdioServerConfig } from '../domain/flow.js';
import { confinedPath, InputFileError } from '../fs/input-file.js';
import { parseModelName } from '../model/resolve.js';
import { ApiError } from './errors.js';
import { regexProblems } from './flow-regexes.js';
import {
  authFileProblems,
  authHostProblems,
  confineHosts,
  endpointOf,
  envRefProblems,
  hostAllowed,
} from './request-reach.js';

/**
 * What a request may make the server do on its host: which scripted model files it may name, which
 * commands a flow sent over HTTP may start, which hosts such a flow's MCP servers may be on.
 * Flows loaded from `--flows DIR` are trusted and not held to it.
 */
export interface RequestPolicy {
  /** `serve --scripted-models DIR`: the folder `scripted:` models named by requests must lie in; null refuses them. */
  readonly scriptedModels: string | null;
  /** `serve --allow-stdio COMMAND` (exact match): commands a stdio MCP server of a request's flow may be. */
  readonly allowStdio: ReadonlySet<string>;
  /**
   * `serve --allow-mcp-host HOST` (any port) or `HOST:PORT` (that port only; the scheme's default when a
   * URL names none): where a request's flow may reach MCP servers over HTTP (lower case, IPv6 in brackets).
   */
  readonly allowMcpHosts: ReadonlySet<string>;
  /**
   * `serve --allow-env VAR`: server environment variables a request's flow may reference as `${VAR}`
   * in an MCP server's `env` or `headers` (anything else would let a caller send the server's secrets
   * to a command or host of its choosing).
   */
  readonly allowEnv: ReadonlySet<string>;
  /**
   * `serve --allow-stdio-env NAME`: variables a request's flow may set in a stdio MCP server's `env`
   * (exact names; none by default). An allow-list, since no list of variables that make programs load
   * code (NODE_OPTIONS, LD_PRELOAD, ERL_AFLAGS, MAVEN_OPTS…) is ever complete.
   */
  readonly allowStdioEnv: ReadonlySet<string>;
}

/** A policy that refuses everything (the default of a server given no flags). */
export const STRICT_POLICY: RequestPolicy = {
  scriptedModels: null,
  allowStdio: new Set(),
  allowMcpHosts: new Set(),
  allowEnv: new Set(),
  allowStdioEnv: new Set(),
};

/**
 * The model a request names, as the run will persist it: `<provider>:<model id>`; a `scripted:`
 * model only under `--scripted-models DIR` and only a file inside it (a relative name resolves
 * against DIR). Throws ApiError 400 naming the model, never anything read from a file.
 */
export function requestModel(spec: string, policy: RequestPolicy, where = 'model'): string {
  let provider: string;
  let modelId: string;
  try {
    ({ provider, modelId } = parseModelName(spec));
  } catch (error) {
    throw new ApiError(400, 'BAD_REQUEST', `${where}: ${(error as Error).message}`);
  }
  if (provider !== 'scripted') return spec;
  if (policy.scriptedModels === null) {
    throw new ApiError(
      400,
      'BAD_REQUEST',
      `${where}: scripted models are not accepted from requests; name a provider model (e.g. openai:gpt-4.1), or start the server with --scripted-models DIR`,
    );
  }
  try {
    return `scripted:${confinedPath(policy.scriptedModels, modelId, 'scripted model')}`;
  } catch (error) {
    if (!(error instanceof InputFileError)) throw error;
    const why =
      error.code === 'OUTSIDE'
        ? 'is outside the --scripted-models folder'
        : 'is not a file in the --scripted-models folder';
    throw new ApiError(400, 'BAD_REQUEST', `${where}: scripted model ${JSON.stringify(modelId)} ${why}`);
  }
}

/**
 * Checks a flow that came over HTTP (inline or uploaded) against the policy and confines it: each stdio
 * MCP server's command must be allowed by `--allow-stdio`, each HTTP MCP server's http(s) URL by
 * `--allow-mcp-host` (host, or host and port), and so must the identity provider and authorization
 * server its `auth` names, which may not name a file on the server (`assertionFile`); a stdio server may not set `cwd` or `inheritEnv: true`, and only `env`
 * variables allowed by `--allow-stdio-env`; `${VAR}` anywhere in its servers' entries (`env`,
 * `headers`, `auth` secrets) may name only variables allowed by `--allow-env`; it may not declare model `providers` (their keys
 * come from the server's environment); its `model` follows `requestModel`; each regex it carries
 * (schema patterns, JSONata regex literals) must run in linear time (`regexProblems`). Throws ApiError
 * 400 FLOW_INVALID listing every refusal. A flow that passes has each stdio server set to
 * `inheritEnv: false` (in place: it starts with a minimal environment, never the server's secrets),
 * each HTTP server's `allowHosts` set to the `--allow-mcp-host` list (every request made for it, and
 * each redirect hop, is held to it, `confineHosts`) and
 * `sandboxExpressions: true` (its JSONata runs in a worker with a memory ceiling and a deadline), which
 * is how it is registered, persisted with its runs and shown.
 */
export function vetRequestFlow(flow: Flow, policy: RequestPolicy): void {
  const problems: string[] = [];
  for (const [id, server] of Object.entries(flow.mcpServers)) {
    problems.push(...envRefProblems(id, server, policy));
    if (isStdioServer(server)) {
      problems.push(...stdioProblems(id, server, policy));
      continue;
    }
    const endpoint = endpointOf(server.url);
    if (endpoint === null)
      problems.push(`mcpServers.${id}: ${JSON.stringify(server.url)} is not an http or https URL`);
    else if (!hostAllowed(endpoint, policy.allowMcpHosts))
      problems.push(
        `mcpServers.${id}: host ${JSON.stringify(endpoint.hostPort)} is not allowed for flows sent over HTTP; the server admits only hosts (HOST, or HOST:PORT) given with --allow-mcp-host`,
      );
    problems.push(...authHostProblems(id, server, policy));
    problems.push(...authFileProblems(id, server));
  }
  for (const id of Object.keys(flow.providers ?? {})) {
    problems.push(
      `providers.${id}: flows sent over HTTP may not declare model providers; declare them in a flow of --flows DIR or with AGENT_RUNTIME_PROVIDER_<NAME>_BASE_URL on the server`,
    );
  }
  if (flow.model !== undefined) {
    try {
      requestModel(flow.model, policy, 'model');
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      problems.push(error.message);
    }
  }
  problems.push(...regexProblems(flow));
  if (flow.sandboxExpressions === false)
    problems.push(
      'sandboxExpressions: flows sent over HTTP always have their expressions evaluated in the sandbox',
    );
  if (problems.length > 0) throw new ApiError(400, 'FLOW_INVALID', 'the flow is not allowed here', problems);
  for (const server of Object.values(flow.mcpServers)) if (isStdioServer(server)) server.inheritEnv = false;
  confineHosts(flow, policy);
  flow.sandboxExpressions = true;
}

/** Why a stdio server of a request's flow is refused: its command, `cwd`, `inheritEnv` or `env` keys. */
function stdioProblems(id: string, server: StdioServerConfig, policy: RequestPolicy): string[] {
  const problems: string[] = [];
  if (!policy.allowStdio.has(server.command))
    problems.push(
      `mcpServers.${id}: command ${JSON.stringify(server.command)} is not allowed for flows sent over HTTP; the server admits only commands given with --allow-stdio`,
    );
  if (server.cwd !== undefined)
    problems.push(
      `mcpServers.${id}.cwd: flows sent over HTTP may not set the working folder of a server (it is the server's flows folder)`,
    );
  if (server.inheritEnv === true)
    problems.push(
      `mcpServers.${id}.inheritEnv: flows sent over HTTP may not pass the server's environment to a command (they always run with a minimal one)`,
    );
  for (const key of Object.keys(server.env ?? {}))
    if (!policy.allowStdioEnv.has(key))
      problems.push(
        `mcpServers.${id}.env: ${JSON.stringify(key)} may not be set by flows sent over HTTP; the server admits only variables given with --allow-stdio-env`,
      );
  return problems;
}

/** Variables that change which code a program loads or whom it trusts, for runtimes a stdio server may be written in. */
const HOOKED_ENV_PREFIXES = [
  'LD_',
  'DYLD_',
  'NODE_',
  'NPM_',
  'BUN_',
  'DENO_',
  'PYTHON',
  'PERL',
  'RUBY',
  'GEM_',
  'BUNDLE_',
  'JAVA',
  'JDK_',
  '_JAVA',
  'CLASSPATH',
  'GIT_',
  'GCONV',
  'GLIBC_',
  'MALLOC_',
  'XDG_',
  'SSL_',
  'CURL_',
  'REQUESTS_',
  'UV_',
  'PIP_',
  'VIRTUAL_ENV',
  'CONDA',
  'DOTNET_',
  'CORECLR_',
  'COMPlus_',
  'LUA_',
  'PHP',
  'ERL',
  'WINE',
  'COREPACK_',
  'PUPPETEER_',
  'PLAYWRIGHT_',
  'HG',
  'MAVEN_',
  'GRADLE_',
  'RUST',
  'CARGO_',
  'YARN_',
  'PNPM_',
  'SSH_',
  'LESS',
  'AWS_CA',
  'MAKE',
  'ELIXIR_',
  'MIX_',
  'HEX_',
  'ELECTRON_',
  'R_LIBS',
  'JULIA_',
  'DOCKER_',
  'GHC_',
  'NIX_',
];
/** Suffixes of variables that hand a program extra options or a command to run (`JAVA_OPTS`, `SYSTEMD_PAGER`…). */
const HOOKED_ENV_SUFFIXES = ['_PROXY', '_OPTS', '_OPTIONS', '_PAGER', '_ASKPASS'];
const HOOKED_ENV_KEYS = new Set([
  'PATH',
  'HOME',
  'SHELL',
  'ENV',
  'BASH_ENV',
  'PS4',
  'GODEBUG',
  'GOFLAGS',
  'SHELLOPTS',
  'BASHOPTS',
  'PROMPT_COMMAND',
  'IFS',
  'CDPATH',
  'GLOBIGNORE',
  'ZDOTDIR',
  'LOCPATH',
  'NLSPATH',
  'HOSTALIASES',
  'RESOLV_HOST_CONF',
  'RES_OPTIONS',
  'LOCALDOMAIN',
  'TMPDIR',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
  'OPENSSL_CONF',
  'OPENSSL_MODULES',
  'SSLKEYLOGFILE',
  'HGRCPATH',
  'PGSERVICEFILE',
  'MYSQL_HOME',
  'GNUPGHOME',
  'KRB5_CONFIG',
  'OPENSSL_ENGINES',
  'CMAKE_TOOLCHAIN_FILE',
  'COR_PROFILER',
  'COR_ENABLE_PROFILING',
  'GONOSUMDB',
  'GOPRIVATE',
  'GONOSUMCHECK',
  'GOINSECURE',
  'CC',
  'CXX',
  'CPP',
  'LD',
  'AR',
  'CFLAGS',
  'LDFLAGS',
  'PREFIX',
  'EDITOR',
  'VISUAL',
  'PAGER',
  'GOPROXY',
  'GOTOOLCHAIN',
  'GOPATH',
  'GOROOT',
  'GOENV',
  'CXXFLAGS',
  'CPPFLAGS',
  'MANPAGER',
  'BROWSER',
  'R_HOME',
  'R_PROFILE',
  'R_PROFILE_USER',
  'R_ENVIRON',
  'R_ENVIRON_USER',
  'TCLLIBPATH',
  'TCL_LIBRARY',
  'TK_LIBRARY',
  'WGETRC',
  'PSQLRC',
  'KUBECONFIG',
]);

/**
 * True for a variable that is known to make a program load other code or trust other hosts: loader,
 * interpreter and shell hooks (`LD_PRELOAD`, `NODE_OPTIONS`, `PYTHONPATH`, `BASH_ENV`, `PATH`…), any
 * `*_OPTS`, `*_OPTIONS`, `*_PAGER` or `*_ASKPASS`, proxies and TLS trust, and any name that is not a plain identifier (case-insensitive). `serve` refuses to
 * allow these with `--allow-stdio-env`; the list can never be complete, which is why that flag is an
 * allow-list.
 */
export function hookedEnvKey(key: string): boolean {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) return true;
  const upper = key.toUpperCase();
  if (HOOKED_ENV_KEYS.has(upper) || HOOKED_ENV_SUFFIXES.some((suffix) => upper.endsWith(suffix))) return true;
  return HOOKED_ENV_PREFIXES.some((prefix) => upper.startsWith(prefix.toUpperCase()));
}

export { endpointOf } from './request-reach.js';
