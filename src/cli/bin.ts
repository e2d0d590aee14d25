#!/usr/bin/env node
/**
 * The `agent-runtime` executable. It checks the Node version before loading anything else (the guard
 * exits 2 with one line on an old Node), then loads the CLI, which runs the command and exits.
 */
import '../node-guard.js';
import { quietSqliteWarning } from './warnings.js';

quietSqliteWarning();
await import('./main.js');
