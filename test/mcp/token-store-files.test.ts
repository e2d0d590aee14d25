import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McpError } from '../../src/mcp/errors.js';
import {
  AUTH_DIR_ENV,
  DEFAULT_AUTH_DIR,
  FileCredentialStore,
  SECRET_KEY_ENV,
  type McpCredentials,
} from '../../src/mcp/token-store.js';

/**
 * The encrypted credential files of src/mcp/token-store.ts at their edges: files damaged in each
 * part, the exact refusals, names per (tenant, server), rewrites, and the store the environment names.
 */

const dirs: string[] = [];
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-cred-files-'));
  dirs.push(dir);
  return join(dir, 'auth');
}
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

const URL = 'https://crm.example/mcp';
const CREDS: McpCredentials = {
  tokens: { access_token: 'at-1', issuer: 'https://as.example' },
  client: { client_id: 'c1' },
  required: { scope: 'read write' },
};

/** The file name of a (tenant, server): a hash of both, as documented in the store. */
function fileOf(dir: string, tenant: string | null, serverUrl: string): string {
  const name = createHash('sha256')
    .update(JSON.stringify([tenant, serverUrl]))
    .digest('hex');
  return join(dir, `${name.slice(0, 40)}.cred`);
}

/** The McpError a read throws. */
function refusal(read: () => unknown): McpError {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(McpError);
    return error as McpError;
  }
  throw new Error('the read did not throw');
}

const NOT_OPENING = (file: string) =>
  `stored MCP credentials do not open under the current AGENT_RUNTIME_SECRET_KEY (it changed, or the file ` +
  `was copied or altered): restore that key, or delete ${file} in AGENT_RUNTIME_MCP_AUTH_DIR and authorize again`;

describe('FileCredentialStore: damaged files', () => {
  it.each([
    ['a flipped byte of the ciphertext', (b: Buffer) => flip(b, b.length - 1)],
    ['a flipped byte of the tag', (b: Buffer) => flip(b, 6 + 12 + 3)],
    ['a flipped byte of the iv', (b: Buffer) => flip(b, 6 + 2)],
    ['the file cut after its header', (b: Buffer) => b.subarray(0, 6 + 20)],
    ['only the header', (b: Buffer) => b.subarray(0, 6)],
    ['an empty file', () => Buffer.alloc(0)],
    ['random bytes without the header', () => Buffer.alloc(64, 7)],
  ])('refuses %s with McpError CONNECT naming the file and the key', (_, damage) => {
    const dir = folder();
    const store = new FileCredentialStore(dir, 'k');
    store.write('acme', URL, CREDS);
    const file = fileOf(dir, 'acme', URL);
    const damaged = damage(readFileSync(file));
    writeFileSync(file, damaged);
    const error = refusal(() => store.read('acme', URL));
    expect(error.code).toBe('CONNECT');
    expect(error.name).toBe('McpConnectError');
    expect(error.message).toBe(NOT_OPENING(file.slice(dir.length + 1)));
    // Not taken for an earlier-format file and rewritten: it is left as it was.
    expect(readFileSync(file).equals(damaged)).toBe(true);
  });

  it('refuses every file once the folder’s salt changed (another key), until the salt is restored', () => {
    const dir = folder();
    new FileCredentialStore(dir, 'k').write(null, URL, CREDS);
    const salt = readFileSync(join(dir, 'key.salt'));
    writeFileSync(join(dir, 'key.salt'), Buffer.alloc(16, 1));
    expect(refusal(() => new FileCredentialStore(dir, 'k').read(null, URL)).code).toBe('CONNECT');
    writeFileSync(join(dir, 'key.salt'), salt);
    expect(new FileCredentialStore(dir, 'k').read(null, URL)).toEqual(CREDS);
  });

  it('throws the file system’s own error when the file cannot be read for another reason than absence', () => {
    const dir = folder();
    const store = new FileCredentialStore(dir, 'k');
    store.write('acme', URL, CREDS);
    const file = fileOf(dir, 'acme', URL);
    rmSync(file);
    mkdirSync(file);
    expect(() => store.read('acme', URL)).toThrow(expect.objectContaining({ code: 'EISDIR' }));
  });
});

describe('FileCredentialStore: names and rewrites', () => {
  it('keeps tenant null apart from the tenant "null" and from the empty tenant', () => {
    const dir = folder();
    const store = new FileCredentialStore(dir, 'k');
    store.write(null, URL, { tokens: { access_token: 'none' } });
    store.write('null', URL, { tokens: { access_token: 'text' } });
    store.write('', URL, { tokens: { access_token: 'empty' } });
    expect(store.read(null, URL)).toEqual({ tokens: { access_token: 'none' } });
    expect(store.read('null', URL)).toEqual({ tokens: { access_token: 'text' } });
    expect(store.read('', URL)).toEqual({ tokens: { access_token: 'empty' } });
    expect(
      readdirSync(dir)
        .filter((f) => f.endsWith('.cred'))
        .sort(),
    ).toEqual(
      [fileOf(dir, null, URL), fileOf(dir, 'null', URL), fileOf(dir, '', URL)]
        .map((f) => f.slice(dir.length + 1))
        .sort(),
    );
  });

  it('starts each file with the ARMC2 header and never writes the same bytes twice', () => {
    const dir = folder();
    const store = new FileCredentialStore(dir, 'k');
    store.write('acme', URL, CREDS);
    const first = readFileSync(fileOf(dir, 'acme', URL));
    store.write('acme', URL, CREDS);
    const second = readFileSync(fileOf(dir, 'acme', URL));
    expect(first.subarray(0, 6).toString('latin1')).toBe('ARMC2\n');
    // Random iv: the same credentials give other bytes, of the same length (6 + 12 + 16 + text).
    expect(second.equals(first)).toBe(false);
    expect(second.length).toBe(first.length);
    expect(first.length).toBe(6 + 12 + 16 + Buffer.byteLength(JSON.stringify(CREDS)));
  });

  it('replaces the file whole: last write wins, mode back to 0600, no temporary file left', () => {
    const dir = folder();
    const store = new FileCredentialStore(dir, 'k');
    store.write('acme', URL, CREDS);
    const file = fileOf(dir, 'acme', URL);
    chmodSync(file, 0o644);
    store.write('acme', URL, { tokens: { access_token: '新しい' } });
    expect(store.read('acme', URL)).toEqual({ tokens: { access_token: '新しい' } });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('keeps the salt of the folder across stores and writes', () => {
    const dir = folder();
    new FileCredentialStore(dir, 'k').write('a', URL, CREDS);
    const salt = readFileSync(join(dir, 'key.salt'));
    new FileCredentialStore(dir, 'k').write('b', URL, CREDS);
    expect(readFileSync(join(dir, 'key.salt')).equals(salt)).toBe(true);
    expect(new FileCredentialStore(dir, 'k').read('a', URL)).toEqual(CREDS);
  });

  it('reads an empty object back as written', () => {
    const dir = folder();
    const store = new FileCredentialStore(dir, 'k');
    store.write('acme', URL, {});
    expect(store.read('acme', URL)).toEqual({});
    expect(existsSync(fileOf(dir, 'acme', URL))).toBe(true);
  });
});

describe('FileCredentialStore without a key', () => {
  it('takes an empty secret for none: reads find nothing, touching no file; writes are refused', () => {
    const dir = folder();
    const keyless = new FileCredentialStore(dir, '');
    expect(keyless.read('acme', URL)).toEqual({});
    expect(existsSync(dir)).toBe(false);
    let error: unknown;
    try {
      keyless.write('acme', URL, CREDS);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({
      code: 'UNAUTHORIZED',
      name: 'McpUnauthorizedError',
      message:
        'cannot keep MCP credentials: set AGENT_RUNTIME_SECRET_KEY (any secret text) so that they are stored encrypted',
    });
    expect(existsSync(dir)).toBe(false);
  });

  it('finds nothing without a key even where a file is stored', () => {
    const dir = folder();
    new FileCredentialStore(dir, 'k').write('acme', URL, CREDS);
    expect(new FileCredentialStore(dir, undefined).read('acme', URL)).toEqual({});
  });
});

describe('FileCredentialStore.fromEnv', () => {
  it('names its variables and default folder as documented', () => {
    expect(SECRET_KEY_ENV).toBe('AGENT_RUNTIME_SECRET_KEY');
    expect(AUTH_DIR_ENV).toBe('AGENT_RUNTIME_MCP_AUTH_DIR');
    expect(DEFAULT_AUTH_DIR).toBe('.agent-runtime/mcp-auth');
  });

  it('keeps files in the folder and under the key the environment gives', () => {
    const dir = folder();
    const store = FileCredentialStore.fromEnv({ [AUTH_DIR_ENV]: dir, [SECRET_KEY_ENV]: 'env key' });
    store.write('acme', URL, CREDS);
    expect(existsSync(fileOf(dir, 'acme', URL))).toBe(true);
    expect(new FileCredentialStore(dir, 'env key').read('acme', URL)).toEqual(CREDS);
    expect(refusal(() => new FileCredentialStore(dir, 'other').read('acme', URL)).code).toBe('CONNECT');
  });

  it('without a key in the environment stores nothing', () => {
    const dir = folder();
    const store = FileCredentialStore.fromEnv({ [AUTH_DIR_ENV]: dir });
    expect(store.read('acme', URL)).toEqual({});
    expect(() => store.write('acme', URL, CREDS)).toThrow(expect.objectContaining({ code: 'UNAUTHORIZED' }));
  });
});

function flip(buffer: Buffer, at: number): Buffer {
  const copy = Buffer.from(buffer);
  copy[at] = (copy[at] ?? 0) ^ 0xff;
  return copy;
}
