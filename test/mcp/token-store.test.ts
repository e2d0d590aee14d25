import { createCipheriv, createDecipheriv, createHash, randomBytes, scryptSync } from 'node:crypto';
import {
  copyFileSync,
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
import { FileCredentialStore } from '../../src/mcp/token-store.js';

/** MCP OAuth credentials at rest: encrypted, per tenant and server, never readable without the key. */

const dirs: string[] = [];
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-cred-'));
  dirs.push(dir);
  return join(dir, 'auth');
}
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

const URL_A = 'https://crm.example/mcp';
const TOKENS = { tokens: { access_token: 'secret-access-token-123', refresh_token: 'secret-refresh-456' } };

describe('FileCredentialStore', () => {
  it('keeps credentials per tenant and server, encrypted in 0600 files whose names show neither', () => {
    const dir = folder();
    const store = new FileCredentialStore(dir, 'key one');
    store.write('acme', URL_A, TOKENS);
    expect(store.read('acme', URL_A)).toEqual(TOKENS);
    expect(store.read('other', URL_A)).toEqual({});
    expect(store.read('acme', 'https://other.example/mcp')).toEqual({});
    const [file] = readdirSync(dir).filter((f) => f.endsWith('.cred'));
    expect(file).toMatch(/^[0-9a-f]{40}\.cred$/);
    const raw = readFileSync(join(dir, file as string));
    expect(raw.toString('latin1')).not.toContain('secret-access-token');
    expect(raw.toString('latin1')).not.toContain('acme');
    expect(statSync(join(dir, file as string)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('refuses credentials stored under another key with a message naming the key, and stores nothing without one', () => {
    const dir = folder();
    new FileCredentialStore(dir, 'key one').write(null, URL_A, TOKENS);
    const other = new FileCredentialStore(dir, 'key two');
    expect(() => other.read(null, URL_A)).toThrow(McpError);
    expect(() => other.read(null, URL_A)).toThrow(
      /do not open under the current AGENT_RUNTIME_SECRET_KEY \(it changed, .*delete [0-9a-f]{40}\.cred in AGENT_RUNTIME_MCP_AUTH_DIR and authorize again/,
    );
    const keyless = new FileCredentialStore(dir, undefined);
    expect(keyless.read(null, URL_A)).toEqual({});
    expect(() => keyless.write(null, URL_A, TOKENS)).toThrow(McpError);
    expect(() => keyless.write(null, URL_A, TOKENS)).toThrow(/AGENT_RUNTIME_SECRET_KEY/);
  });

  it('binds a file to its tenant and server: one copied over another name is refused', () => {
    const dir = folder();
    const store = new FileCredentialStore(dir, 'key one');
    store.write('acme', URL_A, TOKENS);
    const [acmeFile] = readdirSync(dir).filter((f) => f.endsWith('.cred'));
    store.write('globex', URL_A, { tokens: { access_token: 'globex-own' } });
    const globexFile = readdirSync(dir).find((f) => f.endsWith('.cred') && f !== acmeFile) as string;
    copyFileSync(join(dir, acmeFile as string), join(dir, globexFile));
    expect(() => store.read('globex', URL_A)).toThrow(/the file was copied or altered/);
    expect(store.read('acme', URL_A)).toEqual(TOKENS);
  });

  it('derives the key with scrypt and a random salt of the folder, not a bare hash of the secret', () => {
    const dir = folder();
    new FileCredentialStore(dir, 'key one').write('acme', URL_A, TOKENS);
    const salt = readFileSync(join(dir, 'key.salt'));
    expect(salt.length).toBe(16);
    expect(statSync(join(dir, 'key.salt')).mode & 0o777).toBe(0o600);
    const file = readdirSync(dir).find((f) => f.endsWith('.cred')) as string;
    const raw = readFileSync(join(dir, file));
    const body = raw.subarray(raw.indexOf(0x0a) + 1);
    const tryKey = (key: Buffer) => {
      const decipher = createDecipheriv('aes-256-gcm', key, body.subarray(0, 12));
      decipher.setAuthTag(body.subarray(12, 28));
      decipher.setAAD(Buffer.from(JSON.stringify(['mcp-credentials', 'acme', URL_A])));
      return Buffer.concat([decipher.update(body.subarray(28)), decipher.final()]).toString('utf8');
    };
    expect(() => tryKey(createHash('sha256').update('key one').digest())).toThrow();
    const scrypted = scryptSync('key one', salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    expect(JSON.parse(tryKey(scrypted))).toEqual(TOKENS);
    // Another folder has another salt: the same secret gives another key.
    const second = folder();
    new FileCredentialStore(second, 'key one').write('acme', URL_A, TOKENS);
    expect(readFileSync(join(second, 'key.salt')).equals(salt)).toBe(false);
  });

  it('reads a file of the earlier format once and rewrites it bound to its tenant and server', () => {
    const dir = folder();
    const store = new FileCredentialStore(dir, 'key one');
    store.write('acme', URL_A, {});
    const file = join(dir, readdirSync(dir).find((f) => f.endsWith('.cred')) as string);
    // The earlier format: iv ‖ tag ‖ ciphertext under SHA-256(secret), no associated data.
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', createHash('sha256').update('key one').digest(), iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(TOKENS), 'utf8'), cipher.final()]);
    writeFileSync(file, Buffer.concat([iv, cipher.getAuthTag(), body]));
    expect(store.read('acme', URL_A)).toEqual(TOKENS);
    expect(readFileSync(file).subarray(0, 5).toString('latin1')).toBe('ARMC2');
    expect(new FileCredentialStore(dir, 'key one').read('acme', URL_A)).toEqual(TOKENS);
  });
});
