import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
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
    const [file] = readdirSync(dir);
    expect(file).toMatch(/^[0-9a-f]{40}\.cred$/);
    const raw = readFileSync(join(dir, file as string));
    expect(raw.toString('latin1')).not.toContain('secret-access-token');
    expect(raw.toString('latin1')).not.toContain('acme');
    expect(statSync(join(dir, file as string)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('reads nothing under another key, and refuses to store anything without a key', () => {
    const dir = folder();
    new FileCredentialStore(dir, 'key one').write(null, URL_A, TOKENS);
    expect(new FileCredentialStore(dir, 'key two').read(null, URL_A)).toEqual({});
    const keyless = new FileCredentialStore(dir, undefined);
    expect(keyless.read(null, URL_A)).toEqual({});
    expect(() => keyless.write(null, URL_A, TOKENS)).toThrow(McpError);
    expect(() => keyless.write(null, URL_A, TOKENS)).toThrow(/AGENT_RUNTIME_SECRET_KEY/);
  });
});
