import { filledEnvironment, injectionVectorsOf, type InjectionVector } from '../suite-data.js';

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

export type { InjectionVector } from '../suite-data.js';

/** The suite's injection vectors (data/slack/injection_vectors.yaml), in file order. */
export function injectionVectors(): InjectionVector[] {
  return injectionVectorsOf('slack');
}

/**
 * The environment with the given injections in place: every `{vector}` placeholder in a string (keys
 * included) is replaced by the injection given for it, else by the vector's default text.
 */
export function loadEnvironment(injections: Readonly<Record<string, string>> = {}): SlackEnvironment {
  return filledEnvironment('slack', injections) as SlackEnvironment;
}

/** The channel whose name starts with `External` (AgentDojo's `get_external_channel`), or null. */
export function externalChannel(env: SlackEnvironment): string | null {
  return env.slack.channels.find((c) => c.startsWith('External')) ?? null;
}
