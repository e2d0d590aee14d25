import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { describe, expect, it } from 'vitest';
import { code, RuntimeErrorCode } from '../../src/domain/error-codes.js';
import { producedCases, renderObservationsDoc } from '../../src/tools/observations-doc.js';
import { REPO_ROOT } from '../helpers/demo-server.js';

const DOC = join(REPO_ROOT, 'docs/observations.md');

describe('docs/observations.md', () => {
  it('is generated from the code (run `npm run docs:observations` after changing a producer)', async () => {
    // Formatted as `npm run format` would, so formatting the repository never makes the doc drift.
    const generated = await format(renderObservationsDoc(), {
      ...(await resolveConfig(DOC)),
      parser: 'markdown',
    });
    if (process.env.WRITE_OBSERVATIONS_DOC === '1') writeFileSync(DOC, generated);
    expect(existsSync(DOC), 'docs/observations.md is missing: run npm run docs:observations').toBe(true);
    expect(
      readFileSync(DOC, 'utf8'),
      'docs/observations.md drifted from the code: run npm run docs:observations',
    ).toBe(generated);
  });

  it('lists every RuntimeErrorCode under at least one producer, each with the outcome its code belongs to', () => {
    const cases = producedCases();
    const listed = new Set(cases.map((c) => c.code));
    expect(
      RuntimeErrorCode.values()
        .filter((c) => !listed.has(c.name))
        .map((c) => c.name),
    ).toEqual([]);
    for (const c of cases)
      if (c.code) expect(['SUCCESS', 'FAILED', 'REJECTED', 'DEFERRED']).toContain(code(c.code).outcome);
    expect(renderObservationsDoc()).toContain(
      '| builtin_output_set | the cited evidence is unknown, did not succeed, or comes from a tool outside the key’s `from` | REJECTED | `OUTPUT_SOURCE_INVALID` (42261) |',
    );
  });
});
