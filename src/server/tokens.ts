import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ServerConfigError } from './config-error.js';

/** Roles, weakest first: viewer reads; operator also starts registered flows, approves, answers, cancels; admin also manages flows and sends inline flows. */
export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** A configured API token, kept only as the SHA-256 of the token (hex). */
export interface TokenEntry {
  readonly sha256: Buffer;
  readonly role: Role;
  /** Runs this token sees and acts on; null = every run. */
  readonly tenant: string | null;
  /** Recorded as `who` on decisions and answers. */
  readonly name: string;
}

/** Who made a request: a token's name, role and tenant (or the anonymous admin of a server without tokens). */
export interface Principal {
  readonly name: string;
  readonly role: Role;
  readonly tenant: string | null;
}

/** A token list that cannot be used: `message` names the source and the problem. */
function tokenError(message: string, cause?: unknown): ServerConfigError {
  return new ServerConfigError('TOKENS', message, cause === undefined ? undefined : { cause });
}

const EntrySchema = z
  .strictObject({
    token: z.string().min(16, 'a token must have at least 16 characters').optional(),
    tokenSha256: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'tokenSha256 must be 64 hex digits (the SHA-256 of the token)')
      .optional(),
    role: z.enum(ROLES),
    tenant: z.string().min(1).optional(),
    name: z.string().min(1),
  })
  .refine((e) => (e.token === undefined) !== (e.tokenSha256 === undefined), {
    message: 'give exactly one of token or tokenSha256',
  });

const ListSchema = z.array(EntrySchema).min(1, 'expected at least one token');

/** SHA-256 of a token as raw bytes. */
export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * Validates a token list (`[{token | tokenSha256, role, tenant?, name}]`, docs/api.md) and keeps only hashes:
 * plain tokens are hashed here and dropped. Throws ServerConfigError TOKENS naming `source` and each problem;
 * an empty list and a token configured twice are errors.
 */
export function parseTokens(data: unknown, source: string): TokenEntry[] {
  const parsed = ListSchema.safeParse(data);
  if (!parsed.success) throw tokenError(`${source}: ${z.prettifyError(parsed.error)}`);
  const seen = new Set<string>();
  return parsed.data.map((e, i) => {
    const sha256 =
      e.token !== undefined
        ? hashToken(e.token)
        : Buffer.from((e.tokenSha256 as string).toLowerCase(), 'hex');
    const hex = sha256.toString('hex');
    if (seen.has(hex)) throw tokenError(`${source}: entry ${i} (${e.name}) repeats a token configured above`);
    seen.add(hex);
    return { sha256, role: e.role, tenant: e.tenant ?? null, name: e.name };
  });
}

/** Reads a YAML or JSON token file. */
export async function loadTokenFile(file: string): Promise<TokenEntry[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw tokenError(`cannot read token file ${file}: ${(error as Error).message}`, error);
  }
  let data: unknown;
  try {
    // Every field is a string: the failsafe schema keeps a hex hash like 12e4… from becoming a number.
    data = parseYaml(text, { schema: 'failsafe' });
  } catch (error) {
    throw tokenError(`token file ${file} is not valid YAML/JSON: ${(error as Error).message}`, error);
  }
  return parseTokens(data, file);
}

/** The tokens of the env `AGENT_RUNTIME_TOKENS` (a JSON list), or null when it is unset or empty. */
export function tokensFromEnv(env: NodeJS.ProcessEnv = process.env): TokenEntry[] | null {
  const raw = env.AGENT_RUNTIME_TOKENS;
  if (raw === undefined || raw.trim() === '') return null;
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch (error) {
    throw tokenError(`AGENT_RUNTIME_TOKENS is not valid JSON: ${(error as Error).message}`, error);
  }
  return parseTokens(data, 'AGENT_RUNTIME_TOKENS');
}

/**
 * Finds the entry of a presented token. Compares the token's hash with every entry in constant time
 * (no early exit), so the time taken says nothing about which entry or how much of it matched.
 */
export function findToken(entries: readonly TokenEntry[], presented: string): TokenEntry | null {
  const hash = hashToken(presented);
  let found: TokenEntry | null = null;
  for (const entry of entries) {
    if (timingSafeEqual(entry.sha256, hash) && found === null) found = entry;
  }
  return found;
}

/** True when `role` includes the rights of `needed`. */
export function hasRole(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}
