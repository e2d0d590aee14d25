#!/usr/bin/env node
// @ts-check
/**
 * Keeps the published package free of build scripts. `npm pack` / `npm publish` run `prepack` (this
 * script with `strip`), pack the files with the package.json then on disk, then run `postpack` (this
 * script with `restore`). `strip` builds (tsc + the web console; skipped when env
 * AGENT_RUNTIME_PACK_PREBUILT=1, e.g. in a test that built already), keeps the package.json as it is in
 * .package.json.pack-backup and removes `scripts.prepare`: a clone builds through `prepare` on
 * `npm install`, but an installed package is already built, and npm would warn about (and, if allowed,
 * run) a `prepare` of a package installed from a tarball. `restore` puts the package.json back.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = process.cwd();
const MANIFEST = join(ROOT, 'package.json');
const BACKUP = join(ROOT, '.package.json.pack-backup');

function strip() {
  if (existsSync(BACKUP)) restore();
  if (process.env.AGENT_RUNTIME_PACK_PREBUILT !== '1') {
    execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build'], {
      stdio: 'inherit',
      cwd: ROOT,
    });
  }
  const text = readFileSync(MANIFEST, 'utf8');
  const manifest = JSON.parse(text);
  writeFileSync(BACKUP, text);
  if (manifest.scripts) delete manifest.scripts.prepare;
  delete manifest.allowScripts;
  writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
}

function restore() {
  if (existsSync(BACKUP)) renameSync(BACKUP, MANIFEST);
}

const mode = process.argv[2];
if (mode === 'strip') strip();
else if (mode === 'restore') restore();
else {
  process.stderr.write('usage: node scripts/pack-manifest.mjs strip|restore\n');
  process.exit(2);
}
