/** `serve --webhooks`: the file's checks, the host allow-list, and usage errors (docs/notifications.md). */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/cli/args.js';
import { runServe } from '../../../src/cli/serve.js';
import { parseDuration as durationMs } from '../../../src/domain/flow-approval.js';
import { parseWebhooks, WebhookConfigError } from '../../../src/server/webhook-config.js';
import { signature } from '../../../src/server/webhook-send.js';
import { quietLogger, tempDir } from '../helpers.js';
import { SECRET } from './harness.js';

const hook = { url: 'https://hooks.example.com/a', events: ['run.suspended'], secret: SECRET };
const allow = (...hosts: string[]) => new Set(hosts);

describe('webhooks file', () => {
  it('admits a webhook on an allowed host (any port, or that port), and names it by host:port', () => {
    expect(parseWebhooks([hook], 'f', allow('hooks.example.com'))).toEqual([
      { ...hook, name: 'hooks.example.com:443' },
    ]);
    expect(parseWebhooks([hook], 'f', allow('hooks.example.com:443'))).toHaveLength(1);
  });

  it('refuses hosts not allowed, unknown events, short secrets, other schemes and duplicate names', () => {
    const refused = (data: unknown, hosts = allow('hooks.example.com')) => {
      try {
        parseWebhooks(data, 'hooks.yaml', hosts);
        return null;
      } catch (error) {
        expect(error).toBeInstanceOf(WebhookConfigError);
        return (error as Error).message;
      }
    };
    expect(refused([hook], allow('hooks.example.com:8443'))).toMatch(
      /\[0\]\.url: host "hooks.example.com:443" is not allowed; give it with --allow-webhook-host/,
    );
    expect(refused([{ ...hook, events: ['run.started'] }])).toMatch(/events/);
    expect(refused([{ ...hook, secret: 'short' }])).toMatch(/at least 16 characters/);
    expect(refused([{ ...hook, url: 'ftp://hooks.example.com/' }])).toMatch(/an http\(s\) URL/);
    expect(refused([hook, hook])).toMatch(/two webhooks are named "hooks.example.com:443"/);
    expect(refused({ url: hook.url })).toMatch(/hooks\.yaml/);
  });

  it('signs with HMAC-SHA256 of the body', () => {
    // RFC 4231 test case 2.
    expect(signature('Jefe', 'what do ya want for nothing?')).toBe(
      'sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('reads durations', () => {
    expect([durationMs('90s'), durationMs('15m'), durationMs('2h'), durationMs('1d')]).toEqual([
      90_000, 900_000, 7_200_000, 86_400_000,
    ]);
    expect([durationMs('PT1H30M'), durationMs('P1DT2H'), durationMs('500ms')]).toEqual([
      5_400_000, 93_600_000, 500,
    ]);
    expect([
      durationMs('0s'),
      durationMs('PT'),
      durationMs('P'),
      durationMs('soon'),
      durationMs('-1s'),
    ]).toEqual([null, null, null, null, null]);
  });
});

describe('serve --webhooks usage errors', () => {
  const serve = (argv: string[]) =>
    runServe(['--port', '0', ...argv], {
      out: () => undefined,
      stopped: () => Promise.resolve(),
      logger: quietLogger,
    });

  it('refuses a webhook whose host is not allowed, naming the flag', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'hooks.json'), JSON.stringify([hook]));
    const error = await serve(['--webhooks', join(dir, 'hooks.json')]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/^serve: --webhooks: .*--allow-webhook-host/);
  });

  it('refuses a missing file and --allow-webhook-host alone', async () => {
    const dir = await tempDir();
    const missing = await serve(['--webhooks', join(dir, 'none.yaml')]).catch((e: unknown) => e);
    expect((missing as Error).message).toMatch(/cannot read webhooks file/);
    const alone = await serve(['--allow-webhook-host', 'example.com']).catch((e: unknown) => e);
    expect((alone as Error).message).toBe('serve: --allow-webhook-host needs --webhooks FILE');
  });
});
