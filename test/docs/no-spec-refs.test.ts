import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The places a reader of the repository sees: they must not cite a specification they do not have. */
const scanned = ['README.md', 'docs', 'src', 'web/src', 'examples', 'schema', 'test', 'scripts', 'bench'];
const textFile = /\.(md|ts|tsx|mts|js|mjs|json|yaml|yml|css|html)$/;
const citation = /\b(SPEC|seed) ?§|\bSTYLE(\.md)? habit/;
/** This file names the patterns it looks for. */
const self = fileURLToPath(import.meta.url);

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((entry) =>
    entry.name === 'node_modules' || entry.name === 'dist' ? [] : filesUnder(join(path, entry.name)),
  );
}

/** `file:line` of every line of `files` that cites a section of the specification. */
function citations(files: string[]): string[] {
  return files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, index) => (citation.test(line) ? [`${relative(root, file)}:${index + 1}`] : [])),
  );
}

describe('docs and code stand on their own', () => {
  it('finds a citation where there is one', () => {
    expect(citation.test('as SPEC §4 says')).toBe(true);
    expect(citation.test('injectable for tests (STYLE.md habit 4)')).toBe(true);
    expect(citation.test('the pipeline in docs/design.md')).toBe(false);
  });

  it('cites no "SPEC §N" or style habit in README.md, docs/, src/, web/src/, examples/, schema/, test/, scripts/ or bench/', () => {
    const files = scanned
      .flatMap((path) => filesUnder(join(root, path)))
      .filter((file) => textFile.test(file) && file !== self);
    expect(files.length).toBeGreaterThan(100);
    expect(citations(files), 'say it in your own words or link docs/design.md or another docs page').toEqual(
      [],
    );
  });
});
