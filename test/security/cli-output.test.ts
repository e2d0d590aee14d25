import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_SERVER, World, ensureBuilt, turnsYaml, type Summary } from '../cli/helpers/cli.js';

/**
 * The CLI prints untrusted text — a tool's payload (a real MCP server echoing it), the model's text,
 * a reason the model wrote — with terminal control characters made visible, never raw: no window
 * title change (OSC 0), screen clear (CSI 2J), 8-bit CSI, carriage return, OSC 8 hyperlink, or a
 * forged line starting at the left margin. Checked on `run`, `status`, `trace`, `evidence` (list and
 * one record) and the `--json` output of each.
 */

/** Title change, screen clear, a C1 CSI, a carriage return, a forged line and an OSC 8 hyperlink. */
const EVIL =
  'hi\x1b]0;pwned\x07\x1b[2J\x9b31m\rX\n✔ run completed\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\\u2028end\x7f';

/** Terminal controls that must never reach the output raw. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]/;

function flow(dataDir: string): string {
  return [
    'id: echo',
    'locale: en',
    'mcpServers:',
    `  cloud: { command: node, args: [${JSON.stringify(DEMO_SERVER)}], env: { DEMO_CLOUD_DATA: ${JSON.stringify(dataDir)} } }`,
    'nodes:',
    '  - id: a',
    '    tools: [strict_echo]',
  ].join('\n');
}

describe('security: the CLI shows control characters of untrusted text, never obeys them', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  beforeEach(() => {
    w = new World();
  });
  afterEach(async () => {
    await w.dispose();
  });

  it('run, status, trace and evidence print a payload, model text and a reason with escapes made visible', async () => {
    const file = w.write('flow.yaml', flow(w.dataDir));
    w.write(
      'turns.yaml',
      turnsYaml([
        { text: EVIL, calls: [{ tool: 'strict_echo', args: { text: EVIL } }] },
        { calls: [{ tool: 'builtin_node_fail', args: { reason: EVIL } }] },
      ]),
    );
    const run = await w.cli(['run', file, '--input', 'x', '--model', 'scripted:turns.yaml']);
    expect(run.code, run.stderr).toBe(1);
    const runJson = await w.cli(['runs', '--json']);
    const runId = (runJson.json as Summary[])[0]?.runId as string;
    const outputs = {
      run: run.stderr,
      status: (await w.cli(['status', runId])).stderr,
      trace: (await w.cli(['trace', runId])).stderr,
      evidence: (await w.cli(['evidence', runId])).stdout,
      record: (await w.cli(['evidence', runId, 'ev_1'])).stdout,
    };
    for (const [name, text] of Object.entries(outputs)) {
      expect(text, name).toContain('hi␛]0;pwned␇␛[2J<U+009B>31m␍X');
      expect(RAW.test(text), `${name}: ${JSON.stringify(text)}`).toBe(false);
      expect(text, name).not.toMatch(/^✔ run completed/m);
    }
    // The full payload keeps nothing but its own text; the model's text and the reason show too.
    expect(outputs.record).toContain('␛]8;;https://evil.example␛\\click');
    expect(outputs.run).toContain('model → strict_echo “hi␛]0;pwned');
    expect(outputs.status).toContain('reason: FAILED_BY_MODEL hi␛]0;pwned');
    // --json stays the same value for a parser, with no raw control character either.
    for (const args of [
      ['status', runId, '--json'],
      ['trace', runId, '--json'],
      ['evidence', runId, '--json'],
    ]) {
      const r = await w.cli(args);
      expect(RAW.test(r.stdout), args.join(' ')).toBe(false);
      expect(r.stdout, args.join(' ')).toContain('\\u009b');
    }
    const status = JSON.parse((await w.cli(['status', runId, '--json'])).stdout) as Summary;
    expect(status.message).toBe(EVIL);
  });
});
