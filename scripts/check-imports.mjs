#!/usr/bin/env node
// Checks the import graph of src/: no cycle (type-only imports included), and the layering rules
// below. Exits 1 naming every cycle and every forbidden import.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const src = join(root, 'src');

/** Folders that must not import the named folders (the layer below may not see the layer above). */
const forbidden = [{ from: 'src/mcp/', to: 'src/tools/' }];

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

for (const [file, targets] of graph) {
  for (const target of targets) {
    for (const rule of forbidden) {
      if (rel(file).startsWith(rule.from) && rel(target).startsWith(rule.to)) {
        problems.push(`${rel(file)} imports ${rel(target)}: ${rule.from} must not import ${rule.to}`);
      }
    }
  }
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
console.log(`imports: ${files.length} files in src/, no cycle, layers respected`);
