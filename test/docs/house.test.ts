import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const maxLines = 400;
/** Files a tool writes (no one splits them by job): the console's API types from the OpenAPI document. */
const generated = new Set(['web/src/api-types.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** The `src/…/` folders the README's architecture table names (a cell may name several). */
function tableFolders(readme: string): string[] {
  const section = readme.slice(readme.indexOf('## Architecture'));
  const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| folder')));
  return [...table.matchAll(/`(src\/[a-z-]+\/)`/g)].map((match) => match[1] as string);
}

describe('the house keeps its shape', () => {
  it(`has no source file over ${maxLines} lines in src/ or web/src/`, () => {
    const files = [...sourceFiles(join(root, 'src')), ...sourceFiles(join(root, 'web/src'))];
    expect(files.length).toBeGreaterThan(100);
    const long = files
      .map((file) => ({
        file: relative(root, file),
        lines: readFileSync(file, 'utf8').split('\n').length - 1,
      }))
      .filter(({ file, lines }) => lines > maxLines && !generated.has(file));
    expect(long, 'split the file by job').toEqual([]);
  });

  it("names every folder of src/ in the README's architecture table, and no other", () => {
    const named = tableFolders(readFileSync(join(root, 'README.md'), 'utf8'));
    const folders = readdirSync(join(root, 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `src/${entry.name}/`);
    expect(named.length).toBeGreaterThan(5);
    expect([...new Set(named)].sort()).toEqual(folders.sort());
    for (const folder of named) expect(statSync(join(root, folder)).isDirectory()).toBe(true);
  });

  it('writes no run state in place under src/tools/ or src/loop/: changes are values (src/records/changes.ts)', () => {
    // The fields of the run, its node run and the loop's place (src/records/run-state.ts, loop-state.ts).
    const fields =
      'evidence|approvals|inFlight|followUps|tasks|nodeOutputs|inputTexts|gatedCall|pendingWrites|outputs|' +
      'fingerprintCounts|approvedWriteFailed|stalls|rounds|wave|resolved|suspended|declined|consumed|decidedBy|used|next';
    const write = new RegExp(
      `\\.(?:${fields})(?:\\[[^\\]]+\\])?\\s*(?:[-+]?=(?![=>])|\\?\\?=|\\+\\+|--)|` +
        `\\.(?:${fields})\\.(?:push|splice|pop|shift|unshift|sort|reverse)\\(|delete [\\w.]+\\.(?:${fields})\\b`,
    );
    const files = ['src/tools', 'src/loop'].flatMap((dir) => sourceFiles(join(root, dir)));
    expect(files.length).toBeGreaterThan(40);
    const writes = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          write.test(line) && !/^\s*(\/\/|\*)/.test(line)
            ? [`${relative(root, file)}:${i + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(writes, 'record a RunChange instead (ctx.changes.record, host.record.change)').toEqual([]);
  });
});
