import { describe, expect, it } from 'vitest';
import { FlowSchema, type FlowInput } from '../../src/domain/flow.js';
import type { RemoteTool } from '../../src/flow/mcp-check.js';
import { RECIPIENT_LIKE, untrustedWarnings } from '../../src/flow/untrusted-warnings.js';

/** `validate`'s warnings about a write beside untrusted-text tools, without a contract on its recipients. */

const flow = (tools: FlowInput['tools'], nodeTools = ['read_inbox', 'send_email']) =>
  FlowSchema.parse({ id: 'mail', tools, nodes: [{ id: 'work', tools: nodeTools }] });

const warnings = (...args: Parameters<typeof untrustedWarnings>) =>
  untrustedWarnings(...args).map((w) => `${w.path.join('.')}: ${w.message}`);

const mail = (recipients: Record<string, unknown>) => ({
  read_inbox: { write: false, trust: 'untrusted' as const },
  send_email: {
    write: true,
    params: { recipients, body: { source: 'evidence', from: ['read_inbox'] } },
  },
});

describe('untrustedWarnings', () => {
  it('warns at the write when a recipient may come from untrusted text, naming the reader and the parameter', () => {
    expect(warnings(flow(mail({ source: 'evidence', from: ['read_inbox'] }) as never))).toEqual([
      expect.stringMatching(
        /^nodes\.0\.tools\.1: write tool "send_email" shares node "work" with "read_inbox", whose results are untrusted text, and its recipient-like parameter recipients has no contract keeping untrusted text out; expected untrusted: refuse \| single \| pinned, source: user, enum or derive/,
      ),
    ]);
  });

  it.each([
    ['untrusted: refuse', { source: 'evidence', untrusted: 'refuse' }],
    ['source: user alone', { source: 'user' }],
    ['an enum', { source: 'evidence', enum: ['ops@example.com'] }],
  ])('is quiet when the recipient has %s', (_, contract) => {
    expect(warnings(flow(mail(contract) as never))).toEqual([]);
  });

  it('is quiet when the reader is trusted, or not in the same node', () => {
    const trusted = { ...mail({ source: 'evidence' }), read_inbox: { write: false, trust: 'trusted' } };
    expect(warnings(flow(trusted as never))).toEqual([]);
    expect(warnings(flow(mail({ source: 'evidence' }) as never, ['send_email']))).toEqual([]);
  });

  it('reads write, trust and parameters from the listed tools when the flow does not say', () => {
    const listed = new Map<string, RemoteTool>([
      ['read_inbox', { name: 'read_inbox', readOnlyHint: true, openWorldHint: true }],
      [
        'send_email',
        {
          name: 'send_email',
          inputSchema: { type: 'object', properties: { to: {}, cc: {}, subject: {}, body: {} } },
        },
      ],
    ]);
    const [warning] = warnings(flow({}), listed);
    expect(warning).toContain('recipient-like parameters to, cc have no contract');
    // Without the listing, nothing says either tool writes or reads untrusted text.
    expect(warnings(flow({}))).toEqual([]);
  });
});

describe('RECIPIENT_LIKE', () => {
  it('matches names that say where a write sends something or whom it concerns, and not the rest', () => {
    for (const name of [
      'to',
      'cc',
      'bcc',
      'email',
      'e-mail',
      'payeeIban',
      'webhookUrl',
      'channel',
      'ownerId',
    ])
      expect(RECIPIENT_LIKE.test(name), name).toBe(true);
    for (const name of ['subject', 'body', 'amount', 'total', 'title', 'tool'])
      expect(RECIPIENT_LIKE.test(name), name).toBe(false);
  });
});
