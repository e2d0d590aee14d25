import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/runtime/runtime.js';
import { call } from './helpers.js';
import { approvalOf, ATTACKER, bankFlow, CAR_RENTAL, LANDLORD, runBank, type BankRun } from './bank-kit.js';

/**
 * The contract language for untrusted text (docs/flows.md, "Untrusted text"), through the library: a
 * scripted model that pays whatever it read, local tools, and the pending item a person would approve.
 */
describe('untrusted text in contracts', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });
  const run = async (...args: Parameters<typeof runBank>): Promise<BankRun> => {
    const result = await runBank(...args);
    runtimes.push(result.runtime);
    return result;
  };
  const read = (file_path: string) => call.tool('read_file', { file_path });
  const pay = (recipient: string, amount: number) => call.tool('send_money', { recipient, amount });
  const approve = call.approval('send_money', 'pay the bill');

  const single = () =>
    bankFlow({
      send_money: {
        write: true,
        params: {
          recipient: { source: 'evidence', from: ['read_file'], match: 'contains', untrusted: 'single' },
          amount: { source: 'evidence', from: ['read_file'], match: 'contains', untrusted: 'single' },
        },
      },
    });

  it('single: the one IBAN and amount of the bill pass; the pending item marks them untrusted, with the text around', async () => {
    const r = await run(await single(), 'Pay the bill bill-december-2023.txt', [
      read('bill-december-2023.txt'),
      pay(CAR_RENTAL, 98.7),
      approve,
    ]);
    const pending = r.summary.suspension?.pending as {
      matches: Record<string, { trust?: string; context?: string }[]>;
    };
    expect(pending.matches.recipient?.[0]).toMatchObject({ source: 'evidence', trust: 'untrusted' });
    expect(pending.matches.recipient?.[0]?.context).toContain(`IBAN: ${CAR_RENTAL}`);
    // 98.7 stands in the bill as 98.70: numbers compare as numbers.
    expect(pending.matches.amount?.[0]).toMatchObject({ trust: 'untrusted', span: expect.any(Array) });
    expect(pending.matches.amount?.[0]?.context).toContain('98.70');
  });

  it('single: an injected second IBAN makes the bill ambiguous: DEFERRED with every candidate, nothing sent', async () => {
    const r = await run(await single(), 'Pay the bill bill-injected.txt', [
      read('bill-injected.txt'),
      pay(ATTACKER, 98.7),
    ]);
    expect(r.calls.at(-1)).toEqual({
      tool: 'send_money',
      outcome: 'DEFERRED',
      errorCode: 'PARAM_UNTRUSTED_AMBIGUOUS',
    });
    expect(r.lastToolText).toContain(ATTACKER);
    expect(r.lastToolText).toContain(CAR_RENTAL);
    expect(r.summary.suspension).toBeUndefined();
  });

  it("single: the attacker's amount is one of several amounts of the text: DEFERRED", async () => {
    const amountOnly = await bankFlow({
      send_money: {
        write: true,
        params: {
          amount: { source: 'evidence', from: ['read_file'], match: 'contains', untrusted: 'single' },
        },
      },
    });
    const r = await run(amountOnly, 'Pay the bill bill-injected.txt', [
      read('bill-injected.txt'),
      pay(CAR_RENTAL, 1_000_000),
    ]);
    expect(r.calls.at(-1)?.errorCode).toBe('PARAM_UNTRUSTED_AMBIGUOUS');
    expect(r.lastToolText).toContain('candidates of its kind: 1000000, 98.70');
    expect(r.lastToolText).toContain('98.70');
  });

  it('refuse: a value found only in untrusted text is REJECTED; the same value in a trusted record passes as trusted', async () => {
    const loaded = await bankFlow({
      send_money: {
        write: true,
        params: {
          recipient: {
            source: 'evidence',
            from: ['read_file', 'get_scheduled_transactions'],
            match: 'contains',
            untrusted: 'refuse',
          },
        },
      },
    });
    const refused = await run(loaded, 'Pay the bill', [
      read('bill-december-2023.txt'),
      pay(CAR_RENTAL, 98.7),
    ]);
    expect(refused.calls.at(-1)).toEqual({
      tool: 'send_money',
      outcome: 'REJECTED',
      errorCode: 'PARAM_UNTRUSTED_REFUSED',
    });
    expect(refused.lastToolText).toContain('untrusted: refuse');
    const trusted = await run(loaded, 'Pay my landlord again', [
      read('bill-december-2023.txt'),
      call.tool('get_scheduled_transactions'),
      pay(LANDLORD, 1100),
      approve,
    ]);
    const pending = trusted.summary.suspension?.pending as { matches: Record<string, unknown[]> };
    expect(pending.matches.recipient?.[0]).toMatchObject({ trust: 'trusted', evidenceId: 'ev_2' });
  });

  it('trust: { untrusted: [paths] } — an IBAN written in a free-text subject is untrusted, one in the recipient field is not', async () => {
    const loaded = await bankFlow({
      get_scheduled_transactions: { trust: { untrusted: ['transactions.subject'] } },
      send_money: {
        write: true,
        params: {
          recipient: {
            source: 'evidence',
            from: ['get_scheduled_transactions'],
            match: 'contains',
            untrusted: 'refuse',
          },
        },
      },
    });
    const attacked = await run(loaded, 'Pay my landlord', [
      call.tool('get_scheduled_transactions'),
      pay(ATTACKER, 10),
    ]);
    expect(attacked.calls.at(-1)?.errorCode).toBe('PARAM_UNTRUSTED_REFUSED');
    const fine = await run(loaded, 'Pay my landlord', [
      call.tool('get_scheduled_transactions'),
      pay(LANDLORD, 10),
      approve,
    ]);
    expect(approvalOf(fine)?.tool).toBe('send_money');
  });

  it('pinned: untrusted text may supply only what the user also said', async () => {
    const loaded = await bankFlow({
      send_money: {
        write: true,
        params: {
          recipient: { source: 'evidence', from: ['read_file'], match: 'contains', untrusted: 'pinned' },
        },
      },
    });
    const attacked = await run(loaded, 'Pay the bill', [read('bill-injected.txt'), pay(ATTACKER, 5)]);
    expect(attacked.calls.at(-1)).toEqual({
      tool: 'send_money',
      outcome: 'REJECTED',
      errorCode: 'PARAM_UNTRUSTED_NOT_PINNED',
    });
    const pinned = await run(loaded, `Pay the bill to ${CAR_RENTAL}`, [
      read('bill-injected.txt'),
      pay(CAR_RENTAL, 5),
      approve,
    ]);
    const pending = pinned.summary.suspension?.pending as { matches: Record<string, unknown[]> };
    expect(pending.matches.recipient?.[0]).toMatchObject({ source: 'evidence', trust: 'user' });
  });

  it('a tool annotated openWorld is untrusted by default; trust: trusted overrides it', async () => {
    const contract = {
      source: 'evidence' as const,
      from: ['read_file'],
      match: 'contains' as const,
      untrusted: 'refuse' as const,
    };
    const byDefault = await bankFlow({ send_money: { write: true, params: { recipient: contract } } });
    const r = await run(byDefault, 'Pay', [read('bill-december-2023.txt'), pay(CAR_RENTAL, 1)]);
    expect(r.calls.at(-1)?.errorCode).toBe('PARAM_UNTRUSTED_REFUSED');
    const overridden = await bankFlow({
      read_file: { trust: 'trusted' },
      send_money: { write: true, params: { recipient: contract } },
    });
    const ok = await run(overridden, 'Pay', [read('bill-december-2023.txt'), pay(CAR_RENTAL, 1), approve]);
    expect(approvalOf(ok)?.tool).toBe('send_money');
  });

  it('without the new keys an untrusted tool changes nothing: the same contract passes as before', async () => {
    const loaded = await bankFlow({
      send_money: {
        write: true,
        params: { recipient: { source: 'evidence', from: ['read_file'], match: 'contains' } },
      },
    });
    const r = await run(loaded, 'Pay the bill', [read('bill-injected.txt'), pay(ATTACKER, 5), approve]);
    const pending = r.summary.suspension?.pending as { matches: Record<string, Record<string, unknown>[]> };
    expect(pending.matches.recipient?.[0]).not.toHaveProperty('trust');
  });
});

describe('call-level provenance (from: [{ tool, where }])', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });

  it('accepts values only from the read_file call whose file_path the user named', async () => {
    const loaded = await bankFlow({
      send_money: {
        write: true,
        params: {
          recipient: {
            source: 'evidence',
            from: [{ tool: 'read_file', where: { file_path: 'user' } }],
            match: 'contains',
          },
        },
      },
    });
    const text = 'Please pay the bill in bill-december-2023.txt';
    const other = await runBank(loaded, text, [
      call.tool('read_file', { file_path: 'bill-december-2023.txt' }),
      call.tool('read_file', { file_path: 'other.txt' }),
      call.tool('send_money', { recipient: ATTACKER, amount: 98.7 }),
    ]);
    runtimes.push(other.runtime);
    expect(other.calls.at(-1)?.errorCode).toBe('PARAM_PROVENANCE_MISMATCH');
    const named = await runBank(loaded, text, [
      call.tool('read_file', { file_path: 'other.txt' }),
      call.tool('read_file', { file_path: 'bill-december-2023.txt' }),
      call.tool('send_money', { recipient: CAR_RENTAL, amount: 98.7 }),
      call.approval('send_money', 'pay'),
    ]);
    runtimes.push(named.runtime);
    const pending = named.summary.suspension?.pending as {
      matches: Record<string, { evidenceId?: string }[]>;
    };
    expect(pending.matches.recipient?.[0]?.evidenceId).toBe('ev_2');
  });

  it('where: { equals } names the calls made with exactly that argument', async () => {
    const loaded = await bankFlow({
      send_money: {
        write: true,
        params: {
          recipient: {
            source: 'evidence',
            from: [{ tool: 'read_file', where: { file_path: { equals: 'bill-december-2023.txt' } } }],
            match: 'contains',
          },
        },
      },
    });
    const r = await runBank(loaded, 'pay', [
      call.tool('read_file', { file_path: 'other.txt' }),
      call.tool('send_money', { recipient: ATTACKER, amount: 1 }),
    ]);
    runtimes.push(r.runtime);
    // No read of the named file yet: the value cannot come from anywhere.
    expect(r.calls.at(-1)?.errorCode).toBe('PARAM_PROVENANCE_QUERY_FIRST');
  });
});
