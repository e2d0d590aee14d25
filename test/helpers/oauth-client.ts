import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { HttpServerSchema, type HttpServerConfig } from '../../src/domain/flow.js';
import { loginMcpServer, type McpLoginResult } from '../../src/mcp/login.js';
import { FileCredentialStore } from '../../src/mcp/token-store.js';
import { createTransport } from '../../src/mcp/transport.js';
import { browserFor } from './oauth-server.js';

/** A credential folder of its own (encrypted under a test key), for one test. */
export interface CredentialPlace {
  readonly dir: string;
  readonly store: FileCredentialStore;
  remove(): void;
}

export function credentialPlace(): CredentialPlace {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-oauth-'));
  return {
    dir,
    store: new FileCredentialStore(dir, 'test key'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A server entry as the flow schema reads it (defaults filled in, refinements checked). */
export function serverEntry(entry: Record<string, unknown>): HttpServerConfig {
  return HttpServerSchema.parse(entry);
}

/** `mcp login` for tenant "acme", the person's browser played by `browserFor`. */
export async function loginAs(place: CredentialPlace, config: HttpServerConfig): Promise<McpLoginResult> {
  const visits: Promise<void>[] = [];
  try {
    return await loginMcpServer({
      serverId: 'wiki',
      config,
      tenant: 'acme',
      store: place.store,
      showUrl: browserFor(visits),
      timeoutMs: 20_000,
    });
  } finally {
    await Promise.allSettled(visits);
  }
}

/**
 * Lists the server's tools the way a run connects (the transport a run builds, its OAuth provider,
 * no person at hand): the tool names.
 */
export async function listAsRun(
  place: CredentialPlace,
  config: HttpServerConfig,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string[]> {
  const handle = createTransport(config, place.dir, { store: place.store, tenant: 'acme' }, env);
  const client = new Client({ name: 'oauth-test', version: '1.0.0' }, { capabilities: {} });
  try {
    await client.connect(handle.transport);
    const { tools } = await client.listTools();
    return tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}
