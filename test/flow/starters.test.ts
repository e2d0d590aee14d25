import { describe, expect, it } from 'vitest';
import { FlowError, loadFlow, type FlowInput } from '../../src/index.js';

/** The flow key `starters` (docs/threads.md, "Chat starters"): its server is declared, each prompt once. */
const everything = { command: 'node', args: ['server.js'] };
const refusal = async (flow: FlowInput): Promise<FlowError> =>
  (await loadFlow(flow).then(
    () => undefined,
    (e: unknown) => e,
  )) as FlowError;
const base = { id: 'chat', locale: 'en' as const, mcpServers: { everything }, nodes: [{ id: 'a' }] };

describe('starters', () => {
  it('accepts a declared server, with or without prompt names', async () => {
    const loaded = await loadFlow({
      ...base,
      starters: { server: 'everything', prompts: ['simple-prompt'] },
    });
    expect(loaded.flow.starters).toEqual({ server: 'everything', prompts: ['simple-prompt'] });
    await expect(loadFlow({ ...base, starters: { server: 'everything' } })).resolves.toBeDefined();
  });

  it('refuses an undeclared server, a prompt named twice, an empty list and unknown keys', async () => {
    const undeclared = await refusal({ ...base, starters: { server: 'everythin' } });
    expect(undeclared).toBeInstanceOf(FlowError);
    expect(undeclared.message).toContain(
      'starters.server: "everythin" is not an MCP server of this flow (did you mean "everything"?)',
    );
    const twice = await refusal({ ...base, starters: { server: 'everything', prompts: ['p', 'p'] } });
    expect(twice.message).toContain('starters.prompts[1]: prompt "p" is listed twice');
    const empty = await refusal({ ...base, starters: { server: 'everything', prompts: [] } });
    expect(empty.message).toMatch(/starters\.prompts/);
    const extra = await refusal({ ...base, starters: { server: 'everything', names: ['p'] } as never });
    expect(extra.message).toMatch(/starters/);
  });
});
