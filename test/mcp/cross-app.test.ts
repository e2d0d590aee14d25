import { describe, expect, it } from 'vitest';
import { CrossAppAccessProvider } from '@modelcontextprotocol/client';
import { McpAuthSchema } from '../../src/domain/flow-mcp.js';
import { authProviderFor } from '../../src/mcp/oauth.js';
import { FileCredentialStore } from '../../src/mcp/token-store.js';

/** `grant: cross_app_access` in the flow format; the full flow runs in the conformance suite's scenario. */

const IDP = { tokenEndpoint: 'https://idp.example/token', clientId: 'at-idp', idToken: '${ID_TOKEN}' };

describe('grant cross_app_access', () => {
  it('needs idp and clientId, and an IdP with a token endpoint or an issuer', () => {
    const noIdp = McpAuthSchema.safeParse({ grant: 'cross_app_access', clientId: 'c' });
    expect(noIdp.error?.issues[0]?.message).toBe(
      'grant cross_app_access needs `idp` and `clientId` (with `clientSecret`)',
    );
    const noEndpoint = McpAuthSchema.safeParse({
      grant: 'cross_app_access',
      clientId: 'c',
      idp: { clientId: 'at-idp', idToken: 't' },
    });
    expect(noEndpoint.error?.issues[0]?.message).toBe('give `tokenEndpoint` or `issuer`');
    expect(McpAuthSchema.safeParse({ grant: 'cross_app_access', clientId: 'c', idp: IDP }).success).toBe(
      true,
    );
  });

  it('is the SDK cross-app access provider, with the secrets read from the environment', () => {
    process.env.ID_TOKEN = 'id-token-value';
    try {
      const auth = McpAuthSchema.parse({ grant: 'cross_app_access', clientId: 'c', idp: IDP });
      const provider = authProviderFor(
        { url: 'https://wiki.example/mcp', auth },
        { store: new FileCredentialStore('/nonexistent', undefined), tenant: null },
      );
      expect(provider).toBeInstanceOf(CrossAppAccessProvider);
      expect(provider?.redirectUrl).toBeUndefined();
    } finally {
      delete process.env.ID_TOKEN;
    }
  });

  it('names a missing ID token variable', () => {
    const auth = McpAuthSchema.parse({ grant: 'cross_app_access', clientId: 'c', idp: IDP });
    expect(() =>
      authProviderFor(
        { url: 'https://wiki.example/mcp', auth },
        { store: new FileCredentialStore('/nonexistent', undefined), tenant: null },
      ),
    ).toThrow(/ID_TOKEN/);
  });
});
