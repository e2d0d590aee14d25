import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { ID_PATTERN } from './flow-graph.js';

/**
 * The MCP server entries of the flow file format (`mcpServers`, docs/flows.md and docs/mcp.md), as zod
 * schemas: stdio and Streamable HTTP servers, their OAuth settings and roots. Part of flow.ts's format.
 */

const text = z.string().min(1);
const positive = z.int().positive();

/** A root the runtime offers an MCP server (`roots/list`). */
export const McpRootSchema = z.strictObject({
  uri: z.string().regex(/^file:\/\//, { error: 'expected a file:// URI' }),
  name: z.string().optional(),
});

/** Keys of both kinds of MCP server entry: how far the runtime trusts and serves the server (docs/mcp.md). */
function mcpBehaviourKeys() {
  return {
    trustReadOnlyHint: z
      .boolean()
      .optional()
      .describe(
        "Default true: a tool annotated `readOnlyHint: true` is a read. false: every tool of this server is a write unless the flow's `tools` say `write: false`.",
      ),
    roots: z
      .array(McpRootSchema)
      .optional()
      .describe(
        'Roots offered to the server (`roots/list`); the roots capability is declared only with them.',
      ),
    sampling: z
      .boolean()
      .optional()
      .describe(
        "Default false: the server's `sampling/createMessage` is refused. true: it is answered by the calling node's model, traced as sampling.requested and sampling.completed.",
      ),
    protocol: z
      .union([
        z.enum(['auto', 'legacy']),
        z
          .string()
          .regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'expected auto, legacy or a revision such as 2026-07-28' }),
      ])
      .optional()
      .describe(
        'Protocol revision. auto (default for HTTP servers): ask `server/discover` first and use the 2026-07-28 revision when the server speaks it, else the 2025 `initialize` handshake; legacy (default for stdio servers): the 2025 handshake only; a revision such as 2026-07-28: exactly that one, no fallback.',
      ),
    elicitation: z
      .enum(['ask', 'defaults'])
      .optional()
      .describe(
        'Default ask: a form-mode `elicitation/create` suspends the run for the person. defaults: a form question whose every required field has a default in its schema is accepted with the defaults at once (the call goes on, no person is asked); any other question is asked as with ask.',
      ),
    elicitationHoldSeconds: z
      .number()
      .int()
      .min(0)
      .max(3600)
      .optional()
      .describe(
        "Default 0. Seconds the server's request (`elicitation/create` during a call) is held open while a person may answer it, from any process (`agent-runtime answer`, the console, the API): an answer within the hold goes back on that request and the call goes on; without one the call is cancelled and the run suspends as usual. Keep it below the call's timeout.",
      ),
    logLevel: z
      .enum(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'])
      .optional()
      .describe(
        "The least severe log messages the server is asked to send (`logging/setLevel` after connecting, when it declares logging); default: the server's own choice. Messages received during a tool call are traced as mcp.log.",
      ),
  };
}

export const StdioServerSchema = z
  .strictObject({
    command: text,
    args: z.array(z.string()).default([]).describe('Relative paths resolve against `cwd`.'),
    env: z
      .record(z.string(), z.string())
      .optional()
      .describe('Added to the inherited environment (or to the minimal one, see `inheritEnv`).'),
    inheritEnv: z
      .boolean()
      .optional()
      .describe(
        "Default true: the server starts with the runtime's whole environment. false: only HOME, LOGNAME, PATH, SHELL, TERM and USER (plus `env`); flows sent over HTTP always run so.",
      ),
    cwd: z
      .string()
      .optional()
      .describe("Working directory; default (and base of a relative one): the flow file's folder."),
    connectTimeoutMs: positive.optional(),
    ...mcpBehaviourKeys(),
  })
  .describe('An MCP server started as a child process (stdio transport).');

/**
 * The enterprise identity provider of `grant: cross_app_access` (docs/mcp.md, "Enterprise-managed
 * authorization"): where the person's ID token is exchanged for an authorization grant (ID-JAG).
 */
export const McpIdpSchema = z
  .strictObject({
    tokenEndpoint: z.url().optional().describe("The IdP's token endpoint (else discovered from `issuer`)."),
    issuer: z.url().optional().describe("The IdP's issuer URL, for metadata discovery."),
    clientId: text.describe("The runtime's client id at the IdP."),
    clientSecret: z.string().optional().describe('Its secret at the IdP; may be `${VAR}`.'),
    idToken: text.describe("The person's OpenID Connect ID token, usually `${VAR}`."),
  })
  .refine((idp) => idp.tokenEndpoint !== undefined || idp.issuer !== undefined, {
    error: 'give `tokenEndpoint` or `issuer`',
  });

/** How the runtime obtains OAuth tokens for an HTTP MCP server (docs/mcp.md, "Authorization"). */
export const McpAuthSchema = z
  .strictObject({
    grant: z
      .enum(['authorization_code', 'client_credentials', 'cross_app_access', 'jwt_bearer'])
      .default('authorization_code')
      .describe(
        'authorization_code: a person authorizes once (`agent-runtime mcp login`); client_credentials: machine to machine; cross_app_access: enterprise-managed (the IdP grants, see `idp`); jwt_bearer: a workload identity token (`assertion` or `assertionFile`) is exchanged for an access token.',
      ),
    idp: McpIdpSchema.optional().describe(
      'cross_app_access: the enterprise IdP that exchanges the ID token for an authorization grant.',
    ),
    clientId: z
      .string()
      .min(1)
      .optional()
      .describe('A pre-registered client id (else dynamic registration).'),
    clientSecret: z.string().optional().describe('Its secret; may be `${VAR}`.'),
    privateKey: z
      .string()
      .optional()
      .describe('client_credentials with private_key_jwt: the PEM key, usually `${VAR}`.'),
    signingAlgorithm: z.string().optional().describe('With privateKey: the JWT algorithm (default RS256).'),
    clientMetadataUrl: z
      .url()
      .optional()
      .describe('An HTTPS client id metadata document, used as client id where the server supports it.'),
    scope: z.string().optional().describe('Scopes to ask for (default: what the server advertises).'),
    issuer: z
      .url()
      .optional()
      .describe(
        'client_credentials, cross_app_access: the issuer of the authorization server the client is registered with; its secrets are sent nowhere else.',
      ),
    redirectPort: positive
      .max(65535)
      .optional()
      .describe('Loopback port of `mcp login` (default: any free port; fix it for a pre-registered client).'),
    assertion: z
      .string()
      .min(1)
      .optional()
      .describe("jwt_bearer: the workload's JWT, usually `${VAR}` (read at each token request)."),
    assertionFile: z
      .string()
      .refine((path) => isAbsolute(path), { error: 'must be an absolute path' })
      .optional()
      .describe(
        "jwt_bearer: the absolute path of a file holding the workload's JWT (re-read at each token request).",
      ),
    dpop: z
      .boolean()
      .optional()
      .describe(
        'authorization_code: DPoP-bound tokens (RFC 9449). Default: when the authorization server advertises `dpop_signing_alg_values_supported`; true: always send proofs; false: never.',
      ),
  })
  .refine(
    (auth) => auth.grant !== 'cross_app_access' || (auth.idp !== undefined && auth.clientId !== undefined),
    {
      error: 'grant cross_app_access needs `idp` and `clientId` (with `clientSecret`)',
    },
  )
  .refine(
    (auth) =>
      auth.grant !== 'jwt_bearer' ||
      (auth.clientId !== undefined && (auth.assertion === undefined) !== (auth.assertionFile === undefined)),
    { error: 'grant jwt_bearer needs `clientId` and one of `assertion` or `assertionFile`' },
  )
  .refine(
    (auth) =>
      auth.grant === 'jwt_bearer' || (auth.assertion === undefined && auth.assertionFile === undefined),
    { error: '`assertion` and `assertionFile` belong to grant jwt_bearer' },
  )
  .describe('OAuth 2.1 for this server (discovery, registration, PKCE, refresh).');

export const HttpServerSchema = z
  .strictObject({
    url: z.url(),
    headers: z.record(z.string(), z.string()).optional(),
    auth: McpAuthSchema.optional(),
    allowHosts: z
      .array(text)
      .optional()
      .describe(
        'Hosts (HOST, or HOST:PORT) every request for this server may go to: the MCP URL, the authorization server, token and registration endpoints, the identity provider, each redirect hop. Default: any. `serve` sets it to its --allow-mcp-host list on flows sent over HTTP.',
      ),
    connectTimeoutMs: positive.optional(),
    ...mcpBehaviourKeys(),
  })
  .describe('An MCP server reached over Streamable HTTP.');

export const McpServerSchema = z.union([StdioServerSchema, HttpServerSchema], {
  error:
    'expected a stdio server {command, args?, env?, inheritEnv?, cwd?} or an HTTP server {url, headers?}',
});

/** A node's `prompt`: an MCP server's prompt (prompts/get) whose text follows the node's instructions. */
export const NodePromptSchema = z
  .strictObject({
    server: z
      .string()
      .regex(ID_PATTERN, { error: 'expected an id: a letter, then letters, digits, _ or -' })
      .describe('The MCP server (a key of mcpServers).'),
    name: text.describe("The prompt's name on that server (prompts/list)."),
    args: z
      .record(z.string(), z.string())
      .optional()
      .describe('Its arguments; values may reference {{input.<field>}} and {{nodes.<id>.outputs.<key>}}.'),
  })
  .describe(
    "An MCP server's prompt (prompts/get) whose text follows the node's instructions; fetched once when the node run starts.",
  );

/** A flow's `starters`: the prompts of one MCP server a chat offers as its first message (docs/threads.md). */
export const StartersSchema = z
  .strictObject({
    server: z
      .string()
      .regex(ID_PATTERN, { error: 'expected an id: a letter, then letters, digits, _ or -' })
      .describe('The MCP server (a key of mcpServers) whose prompts (prompts/list) are offered.'),
    prompts: z
      .array(text)
      .min(1)
      .max(50)
      .optional()
      .describe("Only these prompts, in this order; default: every prompt of the server's listing."),
  })
  .describe("An MCP server's prompts offered as chat starters: a chosen one's text is the first message.");
