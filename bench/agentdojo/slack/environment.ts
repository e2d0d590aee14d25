import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { dataDir } from '../data-dir.js';

/** A Slack message (AgentDojo's `Message`). */
export interface Message {
  sender: string;
  recipient: string;
  body: string;
}

/** The slack suite's environment (AgentDojo's `SlackEnvironment`: `slack` and `web`). */
export interface SlackEnvironment {
  slack: {
    users: string[];
    channels: string[];
    user_channels: Record<string, string[]>;
    user_inbox: Record<string, Message[]>;
    channel_inbox: Record<string, Message[]>;
  };
  web: { web_content: Record<string, string>; web_requests: string[] };
}

/** One injection vector of the suite: a placeholder in the environment and its text when not attacked. */
export interface InjectionVector {
  id: string;
  description: string;
  default: string;
}

/** The suite's injection vectors (data/slack/injection_vectors.yaml), in file order. */
export function injectionVectors(): InjectionVector[] {
  const raw = parse(readFileSync(join(dataDir(), 'slack', 'injection_vectors.yaml'), 'utf8')) as Record<
    string,
    { description: string; default: string }
  >;
  return Object.entries(raw).map(([id, v]) => ({ id, description: v.description, default: v.default }));
}

/**
 * The environment with the given injections in place: every `{vector}` placeholder in a string (keys
 * included) is replaced by the injection given for it, else by the vector's default text.
 */
export function loadEnvironment(injections: Readonly<Record<string, string>> = {}): SlackEnvironment {
  const values = new Map(injectionVectors().map((v) => [v.id, injections[v.id] ?? v.default]));
  const raw = parse(readFileSync(join(dataDir(), 'slack', 'environment.yaml'), 'utf8')) as unknown;
  return fill(raw, values) as SlackEnvironment;
}

function fill(value: unknown, values: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string')
    return value.replace(/\{([A-Za-z0-9_]+)\}/g, (whole, id: string) => values.get(id) ?? whole);
  if (Array.isArray(value)) return value.map((v) => fill(v, values));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [fill(k, values) as string, fill(v, values)]),
    );
  return value;
}

/** The channel whose name starts with `External` (AgentDojo's `get_external_channel`), or null. */
export function externalChannel(env: SlackEnvironment): string | null {
  return env.slack.channels.find((c) => c.startsWith('External')) ?? null;
}
