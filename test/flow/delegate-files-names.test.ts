import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
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

/**
 * What test/flow/delegate-files.test.ts leaves out: the exact words of every problem about a delegate
 * (never its content, always the name as given, JSON-quoted), roots that do not exist, links inside
 * the folder, and names inside the current directory.
 */

const root = realpathSync(mkdtempSync(join(tmpdir(), 'delegate-names-')));
const flows = join(root, 'flows');
mkdirSync(join(flows, 'team', 'node_modules_x'), { recursive: true });
mkdirSync(join(root, 'outside', '.git'), { recursive: true });
writeFileSync(join(flows, 'team', 'a.yaml'), 'id: a\n');
writeFileSync(join(root, 'outside', '.git', 'config.yaml'), 'id: x\n');
// A link inside the flows folder that leads to a hidden folder outside it.
symlinkSync(join(root, 'outside', '.git'), join(flows, 'shared'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the problem texts', () => {
  it('quote the name as JSON, so quotes and newlines in it stay on one line', () => {
    expect(refusedDelegate('a"b\n.yaml')).toBe(
      `delegate flow "a\\"b\\n.yaml" is not a flow file of the server's flows folder; flows sent over HTTP may delegate only to visible flow files there (not hidden ones, nor in node_modules)`,
    );
    const error = new InputFileError('NOT_REGULAR', '/x', 'm');
    expect(unreadable('a"b.yaml', error)).toBe('"a\\"b.yaml" is not a regular file; expected a flow file');
  });

  it('say a file is too large by the name of the limit', () => {
    expect(unreadable('big.yaml', new InputFileError('TOO_LARGE', '/x', 'm'))).toBe(
      '"big.yaml" is larger than the input file limit (AGENT_RUNTIME_MAX_FILE_BYTES)',
    );
  });

  it('word any other read failure as unreadable', () => {
    expect(unreadable('x.yaml', new InputFileError('NOT_FOUND', '/x', 'm'))).toBe(
      'cannot read "x.yaml"; expected a readable flow file',
    );
  });

  it('name a missing file as written, unquoted', () => {
    expect(notFound('../x.yaml')).toBe(
      "file not found: ../x.yaml; expected a flow file relative to the flow's folder",
    );
  });
});

describe('hiddenOrPackage', () => {
  it('only a part named exactly node_modules counts, not one that merely starts so', () => {
    expect(hiddenOrPackage(flows, join(flows, 'team', 'node_modules_x', 'a.yaml'))).toBe(false);
    expect(hiddenOrPackage(flows, join(flows, 'team', 'node_modules', 'a.yaml'))).toBe(true);
  });

  it('a dot anywhere but at the start of a part does not count', () => {
    expect(hiddenOrPackage(flows, join(flows, 'team.v2', 'a.b.yaml'))).toBe(false);
    expect(hiddenOrPackage(flows, join(flows, 'team', '.v2', 'a.yaml'))).toBe(true);
  });

  it('judges a path by its parts below the root only, the root itself included as no part', () => {
    expect(hiddenOrPackage(flows, flows)).toBe(false);
    expect(hiddenOrPackage(join(root, 'outside', '.git'), join(root, 'outside', '.git', 'config.yaml'))).toBe(
      false,
    );
  });

  it('a root that does not exist is judged by its written path alone', () => {
    const missing = join(root, 'missing');
    expect(hiddenOrPackage(missing, join(missing, '.env'))).toBe(true);
    expect(hiddenOrPackage(missing, join(missing, 'a.yaml'))).toBe(false);
  });

  it('a path through a link is judged as written; its real path is the caller’s to judge too', () => {
    const linked = join(flows, 'shared', 'config.yaml');
    expect(hiddenOrPackage(flows, linked)).toBe(false);
    const real = realOrNull(linked);
    expect(real).toBe(join(root, 'outside', '.git', 'config.yaml'));
    // Outside the root: not this check's business (the confinement check refuses it).
    expect(hiddenOrPackage(flows, real as string)).toBe(false);
  });
});

describe('realOrNull', () => {
  it('is the path itself for a real path, and resolves a link inside a folder', () => {
    expect(realOrNull(flows)).toBe(flows);
    expect(realOrNull(join(flows, 'shared'))).toBe(join(root, 'outside', '.git'));
  });

  it('is null for a path that is not there: missing, or through a regular file', () => {
    expect(realOrNull(join(root, 'nothing-here'))).toBeNull();
    expect(realOrNull(join(root, 'outside', '.git', 'config.yaml', 'below'))).toBeNull();
  });
});

describe('displayName', () => {
  it('shows a path inside the current directory relative to it', () => {
    const inCwd = join(process.cwd(), 'examples', 'flows', 'x.yaml');
    expect(displayName(inCwd)).toBe(join('examples', 'flows', 'x.yaml'));
  });

  it('shows the current directory itself in full', () => {
    expect(displayName(process.cwd())).toBe(process.cwd());
  });

  it('with a confining folder that does not exist, measures from the folder as written', () => {
    const missing = join(root, 'missing');
    expect(displayName(join(missing, 'sub', 'a.yaml'), missing)).toBe(join('sub', 'a.yaml'));
    expect(displayName(join(root, 'elsewhere', 'b.yaml'), missing)).toBe('b.yaml');
  });

  it('shows a file inside the folder whose name starts with two dots relative to it', () => {
    expect(displayName(join(flows, '..notes.yaml'), flows)).toBe('..notes.yaml');
    expect(displayName(join(flows, 'sub', '..x.yaml'), flows)).toBe(join('sub', '..x.yaml'));
  });

  it('never shows a path outside the confining folder, however near it is', () => {
    const sibling = join(root, 'flows-old', 'team', 'a.yaml');
    expect(displayName(sibling, flows)).toBe(basename(sibling));
    expect(relative(flows, sibling).startsWith('..')).toBe(true);
  });
});
