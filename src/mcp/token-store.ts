import { createCipheriv, createDecipheriv, createHash, randomBytes, scryptSync } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { McpError } from './errors.js';

/** The environment variable holding the key MCP credentials are encrypted with (any secret text). */
export const SECRET_KEY_ENV = 'AGENT_RUNTIME_SECRET_KEY';
/** The environment variable naming the folder of the encrypted MCP credentials. */
export const AUTH_DIR_ENV = 'AGENT_RUNTIME_MCP_AUTH_DIR';
/** The folder used when AUTH_DIR_ENV is unset, relative to the current directory (next to the default store). */
export const DEFAULT_AUTH_DIR = '.agent-runtime/mcp-auth';

/** What the runtime keeps for one (tenant, server): OAuth client registration and tokens, as the SDK gives them. */
export interface McpCredentials {
  /** The latest client registration. */
  client?: Record<string, unknown>;
  /** Client registrations by the issuer of the authorization server they were made at. */
  clients?: Record<string, Record<string, unknown>>;
  /** The latest tokens, stamped with the issuer that gave them. */
  tokens?: Record<string, unknown>;
  /** The DPoP key pair the tokens are bound to (dpop.ts). */
  dpop?: Record<string, unknown>;
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
 * derived from `secret` with scrypt (N 2^15, r 8, p 1) and a random salt kept in `dir/key.salt`, with
 * the tenant and server URL as associated data: a file copied over another's name does not open. The
 * file name is a hash, so neither the tenant nor the URL shows. Files are 0600 in a 0700 folder.
 * A file of the earlier format (key a bare SHA-256 of the secret, no associated data) is read once and
 * rewritten in this one. A file that opens under neither throws McpError CONNECT naming
 * SECRET_KEY_ENV (another key, or a file copied or altered) and what to do — it never reads as "log in
 * again". Without a secret, reading finds nothing and writing throws McpError UNAUTHORIZED naming
 * SECRET_KEY_ENV, so a token is never stored in the clear.
 */
export class FileCredentialStore implements McpCredentialStore {
  private readonly secret: string | null;
  private derived: Buffer | null = null;

  constructor(
    private readonly dir: string,
    secret: string | undefined,
  ) {
    this.secret = secret ? secret : null;
  }

  /** The store the environment describes: AUTH_DIR_ENV (or DEFAULT_AUTH_DIR) and SECRET_KEY_ENV. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): FileCredentialStore {
    return new FileCredentialStore(resolve(env[AUTH_DIR_ENV] ?? DEFAULT_AUTH_DIR), env[SECRET_KEY_ENV]);
  }

  read(tenant: string | null, serverUrl: string): McpCredentials {
    if (this.secret === null) return {};
    const file = this.file(tenant, serverUrl);
    let sealed: Buffer;
    try {
      sealed = readFileSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
    if (isSealed(sealed)) {
      const opened = open(this.key(), sealed.subarray(MAGIC.length), boundTo(tenant, serverUrl));
      if (opened !== null) return JSON.parse(opened) as McpCredentials;
    } else {
      const legacy = open(createHash('sha256').update(this.secret).digest(), sealed, null);
      if (legacy !== null) {
        const credentials = JSON.parse(legacy) as McpCredentials;
        this.write(tenant, serverUrl, credentials);
        return credentials;
      }
    }
    throw new McpError(
      'CONNECT',
      `stored MCP credentials do not open under the current ${SECRET_KEY_ENV} (it changed, or the file was copied or altered): ` +
        `restore that key, or delete ${basename(file)} in ${AUTH_DIR_ENV} and authorize again`,
    );
  }

  write(tenant: string | null, serverUrl: string, credentials: McpCredentials): void {
    if (this.secret === null)
      throw new McpError(
        'UNAUTHORIZED',
        `cannot keep MCP credentials: set ${SECRET_KEY_ENV} (any secret text) so that they are stored encrypted`,
      );
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const file = this.file(tenant, serverUrl);
    const temp = `${file}.${process.pid}.tmp`;
    const sealed = seal(this.key(), JSON.stringify(credentials), boundTo(tenant, serverUrl));
    writeFileSync(temp, Buffer.concat([MAGIC, sealed]), { mode: 0o600 });
    chmodSync(temp, 0o600);
    renameSync(temp, file);
  }

  /** The scrypt key of the secret and the folder's salt (derived once per store and secret). */
  private key(): Buffer {
    if (this.derived) return this.derived;
    const salt = folderSalt(this.dir);
    const id = createHash('sha256')
      .update(this.secret ?? '')
      .update(salt)
      .digest('hex');
    this.derived = DERIVED.get(id) ?? scryptSync(this.secret ?? '', salt, 32, SCRYPT);
    DERIVED.set(id, this.derived);
    return this.derived;
  }

  private file(tenant: string | null, serverUrl: string): string {
    const name = createHash('sha256')
      .update(JSON.stringify([tenant, serverUrl]))
      .digest('hex');
    return join(this.dir, `${name.slice(0, 40)}.cred`);
  }
}

/** The first bytes of a file of the current format (an older file starts with its random iv). */
const MAGIC = Buffer.from('ARMC2\n', 'latin1');
/** scrypt parameters: 32 MiB of memory, about 0.1 s on a server core. */
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
/** Keys derived in this process, by hash of (secret, salt): a store is made per connection. */
const DERIVED = new Map<string, Buffer>();
/** The salt file in the credentials folder. */
const SALT_FILE = 'key.salt';

function isSealed(data: Buffer): boolean {
  return data.length >= MAGIC.length && data.subarray(0, MAGIC.length).equals(MAGIC);
}

/** The associated data of a (tenant, server) file. */
function boundTo(tenant: string | null, serverUrl: string): Buffer {
  return Buffer.from(JSON.stringify(['mcp-credentials', tenant, serverUrl]), 'utf8');
}

/** The folder's random salt, made (0600) on first use; a concurrent maker's salt wins. */
function folderSalt(dir: string): Buffer {
  const path = join(dir, SALT_FILE);
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    writeFileSync(path, randomBytes(16), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readFileSync(path);
}

/** iv (12) ‖ tag (16) ‖ ciphertext. */
function seal(key: Buffer, text: string, aad: Buffer): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

/** The plaintext, or null when the data does not authenticate under `key` (and `aad`). */
function open(key: Buffer, sealed: Buffer, aad: Buffer | null): string | null {
  if (sealed.length < 28) return null;
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(12, 28));
  if (aad) decipher.setAAD(aad);
  try {
    return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
  } catch (error) {
    // Another key, another (tenant, server) or an altered file: the caller says which and what to do.
    if (error instanceof Error && /authenticate/i.test(error.message)) return null;
    throw error;
  }
}
