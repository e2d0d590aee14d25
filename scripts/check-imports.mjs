#!/usr/bin/env node
// Checks the import graph of src/: no cycle (type-only imports included), and the folder rules below
// (docs/design.md, "Which folder may import which"). Exits 1 naming every cycle and every forbidden
// import. `node scripts/check-imports.mjs [ROOT]` checks ROOT/src (default: this repository);
// `--rules` prints the rules as JSON.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The folders of src/ each folder may import, besides itself. A folder sees only the layers below
 * it: the persisted records and the domain at the bottom, the behaviour above them, the entry points
 * (command line, HTTP API, worker, evals, test helpers, the package's index) on top. `(root)` is the
 * files directly in src/. A folder without a rule is refused, so a new folder is placed on purpose.
 */
const RULES = {
  fs: ['domain'],
  log: [],
  domain: [],
  records: ['domain'],
  model: ['domain', 'fs', 'records'],
  mcp: ['domain', 'log', 'records'],
  flow: ['domain', 'fs', 'mcp', 'records'],
  store: ['domain', 'records'],
  trace: ['domain', 'log', 'model', 'records', 'store'],
  tools: ['domain', 'fs', 'log', 'mcp', 'model', 'records'],
  loop: ['domain', 'log', 'model', 'records', 'tools', 'trace'],
  graph: ['domain', 'loop', 'records', 'store', 'tools', 'trace'],
  telemetry: ['domain', 'log', 'model', 'records', 'store', 'tools'],
  engine: [
    ...['domain', 'flow', 'fs', 'graph', 'log', 'loop', 'mcp', 'model', 'records'],
    ...['store', 'telemetry', 'tools', 'trace'],
  ],
};
const belowRuntime = [...RULES.engine, 'engine'];
RULES.runtime = belowRuntime;
RULES.worker = [...belowRuntime, 'runtime'];
RULES.server = [...belowRuntime, 'runtime', '(root)'];
RULES.eval = [...belowRuntime, 'runtime'];
RULES.testing = [...belowRuntime, 'runtime', '(root)'];
RULES.cli = [...belowRuntime, 'runtime', 'server', 'worker', 'eval', 'testing', '(root)'];
RULES['(root)'] = [...belowRuntime, 'runtime', 'server', 'worker', 'eval', 'testing'];

const args = process.argv.slice(2);
if (args.includes('--rules')) {
  console.log(JSON.stringify(RULES));
  process.exit(0);
}
const root = args[0] ? resolve(args[0]) : resolve(dirname(new URL(import.meta.url).pathname), '..');
const src = join(root, 'src');

/** The folder of src/ a file is in: its first directory, or `(root)` for a file directly in src/. */
function folderOf(path) {
  const parts = relative(src, path).split('/');
  return parts.length > 1 ? parts[0] : '(root)';
}

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

function resolveImport(from, spec) {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec);
  for (const candidate of [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // try the next form
    }
  }
  return undefined;
}

const files = sourceFiles(src);
const graph = new Map();
for (const file of files) {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const targets = info.importedFiles.map((f) => resolveImport(file, f.fileName)).filter(Boolean);
  graph.set(file, [...new Set(targets)]);
}

const rel = (path) => relative(root, path);
const problems = [];

const unruled = new Set();
for (const [file, targets] of graph) {
  const from = folderOf(file);
  const allowed = RULES[from];
  if (!allowed) {
    unruled.add(from);
    continue;
  }
  for (const target of targets) {
    const to = folderOf(target);
    if (to !== from && !allowed.includes(to)) {
      problems.push(`${rel(file)} imports ${rel(target)}: ${from}/ may not import ${to}/`);
    }
  }
}
for (const folder of unruled) {
  problems.push(
    `src/${folder}/ has no folder rule: add it to RULES in scripts/check-imports.mjs and docs/design.md`,
  );
}

// Tarjan's strongly connected components: every component of more than one file is a cycle.
let index = 0;
const indexOf = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const components = [];
function connect(node) {
  indexOf.set(node, index);
  low.set(node, index);
  index += 1;
  stack.push(node);
  onStack.add(node);
  for (const next of graph.get(node) ?? []) {
    if (!indexOf.has(next)) {
      connect(next);
      low.set(node, Math.min(low.get(node), low.get(next)));
    } else if (onStack.has(next)) {
      low.set(node, Math.min(low.get(node), indexOf.get(next)));
    }
  }
  if (low.get(node) === indexOf.get(node)) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) components.push(component);
  }
}
for (const file of graph.keys()) if (!indexOf.has(file)) connect(file);

for (const component of components) {
  problems.push(`import cycle of ${component.length} files: ${component.map(rel).sort().join(', ')}`);
}

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
console.log(`imports: ${files.length} files in src/, no cycle, folder rules respected`);
