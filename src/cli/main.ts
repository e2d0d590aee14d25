#!/usr/bin/env node
// The CLI lands with the loop (issue 4); until then it only says so.
process.stderr.write('agent-runtime: the command line is not built yet\n');
process.exit(2);
