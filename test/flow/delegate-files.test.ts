import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  displayName,
  hiddenOrPackage,
  notFound,
  realOrNull,
  refusedDelegate,
  unreadable,
} from '../../src/flow/delegate-files.js';
import { InputFileError } from '../../src/fs/input-file.js';

/** What the flow loader checks and says about delegate files, on a real folder with a link. */

const root = realpathSync(mkdtempSync(join(tmpdir(), 'delegates-')));
const flows = join(root, 'flows');
for (const dir of ['team', '.private', 'node_modules/pkg']) mkdirSync(join(flows, dir), { recursive: true });
for (const file of ['team/a.yaml', '.private/b.yaml', 'node_modules/pkg/c.yaml', '.hidden.yaml'])
  writeFileSync(join(flows, file), 'id: x\n');
// A link to the flows folder: a path through it is judged by where it leads, too.
symlinkSync(flows, join(root, 'link'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('hiddenOrPackage', () => {
  it('refuses a path with a part starting with a dot or named node_modules, below the root only', () => {
    expect(hiddenOrPackage(flows, join(flows, 'team/a.yaml'))).toBe(false);
    expect(hiddenOrPackage(flows, join(flows, '.private/b.yaml'))).toBe(true);
    expect(hiddenOrPackage(flows, join(flows, '.hidden.yaml'))).toBe(true);
    expect(hiddenOrPackage(flows, join(flows, 'node_modules/pkg/c.yaml'))).toBe(true);
    // The parts above the root are not the flow's business (a root inside a hidden folder is fine).
    expect(hiddenOrPackage(join(flows, '.private'), join(flows, '.private/b.yaml'))).toBe(false);
    expect(hiddenOrPackage(flows, join(root, 'elsewhere/.x.yaml'))).toBe(false);
  });

  it('judges a root given through a link by its real folder as well', () => {
    const linked = join(root, 'link');
    expect(hiddenOrPackage(linked, join(flows, '.private/b.yaml'))).toBe(true);
    expect(hiddenOrPackage(linked, join(linked, 'node_modules/pkg/c.yaml'))).toBe(true);
    expect(hiddenOrPackage(linked, join(flows, 'team/a.yaml'))).toBe(false);
  });
});

describe('realOrNull', () => {
  it('resolves links, and is null for a path that does not exist', () => {
    expect(realOrNull(join(root, 'link/team/a.yaml'))).toBe(join(flows, 'team/a.yaml'));
    expect(realOrNull(join(root, 'missing.yaml'))).toBeNull();
  });
});

describe('displayName', () => {
  it('shows a path relative to the confining folder, and only the file name of one outside it', () => {
    expect(displayName(join(flows, 'team/a.yaml'), flows)).toBe(join('team', 'a.yaml'));
    expect(displayName(join(flows, 'team/a.yaml'), join(root, 'link'))).toBe(join('team', 'a.yaml'));
    expect(displayName(join(root, 'secret/server.yaml'), flows)).toBe('server.yaml');
    expect(displayName(flows, flows)).toBe('flows');
  });

  it('without a confining folder, shows a path outside the current directory in full', () => {
    expect(displayName(join(root, 'x.yaml'))).toBe(join(root, 'x.yaml'));
  });
});

describe('the texts about delegates', () => {
  it('refuse every bad delegate of a request in the same words, naming only what was asked for', () => {
    const text = refusedDelegate('../../etc/passwd');
    expect(text).toBe(
      `delegate flow "../../etc/passwd" is not a flow file of the server's flows folder; flows sent over HTTP may delegate only to visible flow files there (not hidden ones, nor in node_modules)`,
    );
    expect(notFound('sub/flow.yaml')).toBe(
      "file not found: sub/flow.yaml; expected a flow file relative to the flow's folder",
    );
  });

  it('say why a file cannot be read, without its content', () => {
    const error = (code: 'NOT_REGULAR' | 'TOO_LARGE' | 'UNREADABLE') =>
      new InputFileError(code, '/x', 'secret content here');
    expect(unreadable('a.yaml', error('NOT_REGULAR'))).toBe(
      '"a.yaml" is not a regular file; expected a flow file',
    );
    expect(unreadable('a.yaml', error('TOO_LARGE'))).toContain('larger than the input file limit');
    expect(unreadable('a.yaml', error('UNREADABLE'))).toBe(
      'cannot read "a.yaml"; expected a readable flow file',
    );
    for (const code of ['NOT_REGULAR', 'TOO_LARGE', 'UNREADABLE'] as const)
      expect(unreadable('a.yaml', error(code))).not.toContain('secret');
  });
});
