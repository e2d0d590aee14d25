/**
 * Imported first by every entry point (CLI, main entry, subpaths): on an unsupported Node it prints one
 * line naming the required and the found version and exits 2, before any module needing a newer Node
 * runs. On a supported Node it does nothing. This file must stay free of imports that an old Node lacks.
 */
import { nodeVersionProblem } from './node-version.js';

const problem = nodeVersionProblem(process.versions.node);
if (problem !== null) {
  process.stderr.write(`${problem}\n`);
  process.exit(2);
}
