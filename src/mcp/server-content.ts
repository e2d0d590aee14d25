import type { McpConnection, McpListOptions } from './types.js';

/**
 * What the runtime asks a server besides tools (docs/mcp.md, "Resources, prompts and completions"):
 * its resources and resource templates, its prompts, and completions of prompt and template
 * arguments. Each goes through the connection's SDK client (`McpConnection.request`); what comes back
 * is cut to the fields a model or a person reads, and bounded.
 */

/** At most this many resources, and as many templates, of one server are listed. */
export const MAX_LISTED_RESOURCES = 100;

/** A description longer than this is cut (characters). */
const DESCRIPTION_CHARS = 300;

/** One resource of a server's `resources/list`. */
export interface ListedResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Record<string, unknown>;
}

/** One template of a server's `resources/templates/list`. */
export interface ListedTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/** A server's resources and templates, each list at most MAX_LISTED_RESOURCES long. */
export interface ResourceListing {
  resources: ListedResource[];
  templates: ListedTemplate[];
  /** Set when the server had more than MAX_LISTED_RESOURCES of either. */
  truncated?: true;
}

/**
 * `resources/list` and `resources/templates/list` of a server (every page, as the SDK walks them). A
 * server without the resources capability has none.
 */
export async function listServerResources(
  connection: McpConnection,
  options: McpListOptions = {},
): Promise<ResourceListing> {
  const request = requester(connection);
  return request(async (client, requestOptions) => {
    if (client.getServerCapabilities()?.resources === undefined) return { resources: [], templates: [] };
    const [{ resources }, { resourceTemplates }] = await Promise.all([
      client.listResources(undefined, requestOptions),
      client.listResourceTemplates(undefined, requestOptions),
    ]);
    const listing: ResourceListing = {
      resources: resources.slice(0, MAX_LISTED_RESOURCES).map((r) => ({
        uri: r.uri,
        name: r.name,
        ...optional(r.title, r.description, r.mimeType),
        ...(typeof r.size === 'number' ? { size: r.size } : {}),
        ...(r.annotations ? { annotations: { ...r.annotations } } : {}),
      })),
      templates: resourceTemplates.slice(0, MAX_LISTED_RESOURCES).map((t) => ({
        uriTemplate: t.uriTemplate,
        name: t.name,
        ...optional(t.title, t.description, t.mimeType),
      })),
    };
    if (resources.length > MAX_LISTED_RESOURCES || resourceTemplates.length > MAX_LISTED_RESOURCES)
      listing.truncated = true;
    return listing;
  }, options);
}

/** The connection's `request`, or an error saying the connection cannot make one. */
export function requester(connection: McpConnection): NonNullable<McpConnection['request']> {
  const request = connection.request?.bind(connection);
  if (!request) throw new Error(`MCP connection ${connection.serverId} cannot make requests`);
  return request;
}

function optional(
  title: string | undefined,
  description: string | undefined,
  mimeType: string | undefined,
): { title?: string; description?: string; mimeType?: string } {
  return {
    ...(title ? { title } : {}),
    ...(description ? { description: cut(description) } : {}),
    ...(mimeType ? { mimeType } : {}),
  };
}

function cut(text: string): string {
  const chars = [...text];
  return chars.length > DESCRIPTION_CHARS ? `${chars.slice(0, DESCRIPTION_CHARS - 1).join('')}…` : text;
}

/** A prompt's text longer than this is cut (characters): instructions, not a document. */
export const MAX_PROMPT_CHARS = 20_000;

/**
 * `prompts/get` of `name` with `args`, as the text of a node's instructions: the text of each message
 * (a text block, or an embedded text resource), one paragraph each; other content (images, audio,
 * binary resources) is named by its type in brackets. Cut to MAX_PROMPT_CHARS.
 */
export async function getPromptText(
  connection: McpConnection,
  name: string,
  args: Readonly<Record<string, string>>,
  options: McpListOptions = {},
): Promise<string> {
  const request = requester(connection);
  const result = await request(
    (client, requestOptions) => client.getPrompt({ name, arguments: { ...args } }, requestOptions),
    options,
  );
  const paragraphs = result.messages.map((message) => {
    const content = message.content as { type: string; text?: unknown; resource?: { text?: unknown } };
    if (content.type === 'text' && typeof content.text === 'string') return content.text;
    if (content.type === 'resource' && typeof content.resource?.text === 'string')
      return content.resource.text;
    return `[${content.type}]`;
  });
  const text = paragraphs.join('\n\n');
  if (text.length <= MAX_PROMPT_CHARS) return text;
  // Cut on a whole character: a surrogate pair is never split.
  const chars = [...text];
  return chars.length > MAX_PROMPT_CHARS ? `${chars.slice(0, MAX_PROMPT_CHARS - 1).join('')}…` : text;
}

/** What `completion/complete` completes: an argument of a prompt, or a variable of a resource template. */
export type CompletionRef = { type: 'prompt'; name: string } | { type: 'template'; uri: string };

/** The values a server suggests for an argument (at most 100, as MCP says), and whether it has more. */
export interface Completion {
  values: string[];
  total?: number;
  hasMore?: boolean;
}

/**
 * `completion/complete` of argument `argument` (its name and what the person typed so far) of a prompt
 * or a resource template, with the other arguments already filled in as `context`. A server without
 * the completions capability suggests nothing.
 */
export async function completeArgument(
  connection: McpConnection,
  ref: CompletionRef,
  argument: { name: string; value: string },
  context: Readonly<Record<string, string>> = {},
  options: McpListOptions = {},
): Promise<Completion> {
  const request = requester(connection);
  const { completion } = await request(async (client, requestOptions) => {
    if (client.getServerCapabilities()?.completions === undefined) return { completion: { values: [] } };
    return client.complete(
      {
        ref:
          ref.type === 'prompt'
            ? { type: 'ref/prompt', name: ref.name }
            : { type: 'ref/resource', uri: ref.uri },
        argument,
        ...(Object.keys(context).length > 0 ? { context: { arguments: { ...context } } } : {}),
      },
      requestOptions,
    );
  }, options);
  return {
    values: completion.values.slice(0, 100),
    ...(typeof completion.total === 'number' ? { total: completion.total } : {}),
    ...(typeof completion.hasMore === 'boolean' ? { hasMore: completion.hasMore } : {}),
  };
}

/** One argument of a listed prompt. */
export interface ListedPromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}

/** One prompt of a server's `prompts/list`. */
export interface ListedPrompt {
  name: string;
  title?: string;
  description?: string;
  arguments: ListedPromptArgument[];
}

/**
 * `prompts/list` of a server (every page, as the SDK walks them), at most MAX_LISTED_RESOURCES
 * prompts. A server without the prompts capability has none.
 */
export async function listServerPrompts(
  connection: McpConnection,
  options: McpListOptions = {},
): Promise<ListedPrompt[]> {
  const request = requester(connection);
  return request(async (client, requestOptions) => {
    if (client.getServerCapabilities()?.prompts === undefined) return [];
    const { prompts } = await client.listPrompts(undefined, requestOptions);
    return prompts.slice(0, MAX_LISTED_RESOURCES).map((p) => ({
      name: p.name,
      ...optional(p.title, p.description, undefined),
      arguments: (p.arguments ?? []).map((a) => ({
        name: a.name,
        ...(a.description ? { description: cut(a.description) } : {}),
        ...(a.required === true ? { required: true } : {}),
      })),
    }));
  }, options);
}
