import { sep } from 'node:path';
import { realOrSelf } from '../fs/input-file.js';
import { ModelError } from '../model/errors.js';

/**
 * What a caller over HTTP is told when a run is refused because of its model (RunError
 * REQUEST_INVALID). Operators may name any model, so the answer must not teach them the server's
 * configuration or file system: a provider problem (missing key, unknown provider, bad setting) is
 * "model provider X is not configured on this server" — the variables it names are the server's
 * business — and a scripted model file is named relative to its folder (`--scripted-models DIR`,
 * `--flows DIR`). The message as thrown is for the server's log.
 */

/** `<provider>:` at the start of a model's configuration error (`model openai:gpt-4.1: …`, `qwen:x: …`). */
const PROVIDER = /^(?:model )?([A-Za-z0-9][\w.-]*):/;

/** The message of a refusal as an HTTP caller may read it. */
export function publicRefusal(message: string, cause: unknown, folders: readonly string[]): string {
  if (cause instanceof ModelError && cause.code === 'CONFIG') {
    const provider = PROVIDER.exec(cause.message)?.[1];
    return provider
      ? `model provider ${provider} is not configured on this server`
      : 'the model is not configured on this server';
  }
  return withoutFolders(message, folders);
}

/**
 * The folders whose paths are never shown over HTTP, each as given and as resolved (links), longest
 * first; the file system root is left alone (it is part of every path).
 */
export function hiddenFolders(dirs: readonly (string | null | undefined)[]): string[] {
  const all = new Set<string>();
  for (const dir of dirs) {
    if (!dir) continue;
    all.add(dir);
    all.add(realOrSelf(dir));
  }
  return [...all].filter((dir) => dir.replace(/[\\/]+$/, '') !== '').sort((a, b) => b.length - a.length);
}

/** `message` with `folder/…` written relative to the folder, and the folder itself as `.`. */
export function withoutFolders(message: string, folders: readonly string[]): string {
  let shown = message;
  for (const folder of folders) {
    const inside = new RegExp(`${escape(folder)}(?:${escape(sep)}|(?=$|[\\s:;,'")]))`, 'g');
    shown = shown.replace(inside, (match) => (match.length > folder.length ? '' : '.'));
  }
  return shown;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
