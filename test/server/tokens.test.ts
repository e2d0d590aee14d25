import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  findToken,
  hashToken,
  hasRole,
  loadTokenFile,
  parseTokens,
  tokensFromEnv,
} from '../../src/server/tokens.js';
import { tempDir } from './helpers.js';

/** Token configuration: `{token | tokenSha256, role, tenant?, name}` lists, kept hashed. */

const PLAIN = 'a-long-enough-secret-token';

describe('parseTokens', () => {
  it('keeps only hashes and finds a presented token by its hash', () => {
    const sha = hashToken('another-long-secret-token').toString('hex');
    const entries = parseTokens(
      [
        { token: PLAIN, role: 'operator', name: 'ops' },
        { tokenSha256: sha.toUpperCase(), role: 'viewer', tenant: 'acme', name: 'acme-viewer' },
      ],
      'test',
    );
    expect(JSON.stringify(entries)).not.toContain(PLAIN);
    expect(findToken(entries, PLAIN)).toMatchObject({ name: 'ops', role: 'operator', tenant: null });
    expect(findToken(entries, 'another-long-secret-token')).toMatchObject({
      name: 'acme-viewer',
      tenant: 'acme',
    });
    expect(findToken(entries, `${PLAIN}x`)).toBeNull();
  });

  it('names each problem: both or neither secret, short tokens, bad hashes, unknown keys and roles, repeats, empty lists', () => {
    const bad = (data: unknown): string => {
      try {
        parseTokens(data, 'tokens.yaml');
      } catch (error) {
        expect(error).toMatchObject({ code: 'TOKENS' });
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(bad([{ role: 'admin', name: 'x' }])).toMatch(/exactly one of token or tokenSha256/);
    expect(
      bad([{ token: PLAIN, tokenSha256: hashToken(PLAIN).toString('hex'), role: 'admin', name: 'x' }]),
    ).toMatch(/exactly one/);
    expect(bad([{ token: 'short', role: 'admin', name: 'x' }])).toMatch(/16 characters/);
    expect(bad([{ tokenSha256: 'abc', role: 'admin', name: 'x' }])).toMatch(/64 hex digits/);
    expect(bad([{ token: PLAIN, role: 'root', name: 'x' }])).toMatch(/role/);
    expect(bad([{ token: PLAIN, role: 'admin', name: 'x', scope: 'all' }])).toMatch(/scope/);
    expect(
      bad([
        { token: PLAIN, role: 'admin', name: 'x' },
        { tokenSha256: hashToken(PLAIN).toString('hex'), role: 'viewer', name: 'y' },
      ]),
    ).toMatch(/repeats a token/);
    expect(bad([])).toMatch(/at least one token/);
    expect(bad({ token: PLAIN })).toMatch(/^tokens\.yaml: /);
  });

  it('reads YAML or JSON files and the AGENT_RUNTIME_TOKENS env', async () => {
    const dir = await tempDir({
      'tokens.yaml': `- { token: ${PLAIN}, role: admin, name: root }\n- { tokenSha256: ${'1'.repeat(60)}1e10, role: viewer, name: digits }\n`,
      'tokens.json': JSON.stringify([{ token: PLAIN, role: 'viewer', name: 'v' }]),
    });
    const fromYaml = await loadTokenFile(join(dir, 'tokens.yaml'));
    expect(fromYaml.map((e) => [e.role, e.sha256.toString('hex')])).toEqual([
      ['admin', hashToken(PLAIN).toString('hex')],
      ['viewer', `${'1'.repeat(60)}1e10`],
    ]);
    expect((await loadTokenFile(join(dir, 'tokens.json')))[0]?.role).toBe('viewer');
    await expect(loadTokenFile(join(dir, 'missing.yaml'))).rejects.toThrow(/cannot read token file/);
    await writeFile(join(dir, 'broken.yaml'), '- { token: [');
    await expect(loadTokenFile(join(dir, 'broken.yaml'))).rejects.toThrow(/not valid YAML/);
    expect(tokensFromEnv({})).toBeNull();
    expect(
      tokensFromEnv({
        AGENT_RUNTIME_TOKENS: JSON.stringify([{ token: PLAIN, role: 'operator', tenant: 't1', name: 'n' }]),
      })?.[0],
    ).toMatchObject({ tenant: 't1' });
    expect(() => tokensFromEnv({ AGENT_RUNTIME_TOKENS: '[{' })).toThrow(/not valid JSON/);
  });

  it('orders roles viewer < operator < admin', () => {
    expect(hasRole('admin', 'operator')).toBe(true);
    expect(hasRole('operator', 'operator')).toBe(true);
    expect(hasRole('viewer', 'operator')).toBe(false);
  });
});
