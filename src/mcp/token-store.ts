import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { McpError } from './errors.js';

/** The environment variable holding the key MCP credentials are encrypted with (any secret text). */
export const SECRET_KEY_ENV = 'AGENT_RUNTIME_SECRET_KEY';
/** The environment variable naming the folder of the encrypted MCP credentials. */
export const AUTH_DIR_ENV = 'AGENT_RUNTIME_MCP_AUTH_DIR';
/** The folder used when AUTH_DIR_ENV is unset, relative to the current directory (next to the default store). */
export const DEFAULT_AUTH_DIR = '.agent-runtime/mcp-auth';

/** What the runtime keeps for one (tenant, server): OAuth client registration and tokens, as the SDK gives them. */
export interface McpCredentials {
  client?: Record<string, unknown>;
  tokens?: Record<string, unknown>;
  /** Where the server's authorization server is and what it says (OAuth discovery), kept between processes. */
  discovery?: Record<string, unknown>;
  /**
   * What a run found it needs and a person must grant (`mcp login`, the console's Connect): the scope
   * the server asked for (a 403 `insufficient_scope` step-up, or the first authorization).
   */
  required?: { scope?: string };
}

/** Where MCP credentials live, per tenant and server URL. */
export interface McpCredentialStore {
  read(tenant: string | null, serverUrl: string): McpCredentials;
  write(tenant: string | null, serverUrl: string, credentials: McpCredentials): void;
}

/**
 * Credentials as one file per (tenant, server URL) in `dir`, encrypted with AES-256-GCM under a key
 * derived (SHA-256) from `secret`; the file name is a hash, so neither the tenant nor the URL shows.
 * Files are 0600 in a 0700 folder. A file that does not decrypt (another key, tampered) reads as
 * empty: the person logs in again. Without a secret, reading finds nothing and writing throws
 * McpError UNAUTHORIZED naming SECRET_KEY_ENV, so a token is never stored in the clear.
 */
export class FileCredentialStore implements McpCredentialStore {
  private readonly key: Buffer | null;

  constructor(
    private readonly dir: string,
    secret: string | undefined,
  ) {
    this.key = secret ? createHash('sha256').update(secret).digest() : null;
  }

  /** The store the environment describes: AUTH_DIR_ENV (or DEFAULT_AUTH_DIR) and SECRET_KEY_ENV. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): FileCredentialStore {
    return new FileCredentialStore(resolve(env[AUTH_DIR_ENV] ?? DEFAULT_AUTH_DIR), env[SECRET_KEY_ENV]);
  }

  read(tenant: string | null, serverUrl: string): McpCredentials {
    if (!this.key) return {};
    let sealed: Buffer;
    try {
      sealed = readFileSync(this.file(tenant, serverUrl));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
    const opened = open(this.key, sealed);
    return opened === null ? {} : (JSON.parse(opened) as McpCredentials);
  }

  write(tenant: string | null, serverUrl: string, credentials: McpCredentials): void {
    if (!this.key)
      throw new McpError(
        'UNAUTHORIZED',
        `cannot keep MCP credentials: set ${SECRET_KEY_ENV} (any secret text) so that they are stored encrypted`,
      );
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const file = this.file(tenant, serverUrl);
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, seal(this.key, JSON.stringify(credentials)), { mode: 0o600 });
    chmodSync(temp, 0o600);
    renameSync(temp, file);
  }

  private file(tenant: string | null, serverUrl: string): string {
    const name = createHash('sha256')
      .update(JSON.stringify([tenant, serverUrl]))
      .digest('hex');
    return join(this.dir, `${name.slice(0, 40)}.cred`);
  }
}

/** iv (12) ‖ tag (16) ‖ ciphertext. */
function seal(key: Buffer, text: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

/** The plaintext, or null when the data does not authenticate under `key`. */
function open(key: Buffer, sealed: Buffer): string | null {
  if (sealed.length < 28) return null;
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(12, 28));
  try {
    return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    // Another key or a tampered file: nothing usable is stored (the caller treats it as "log in again").
    return null;
  }
}
