import { resolve } from 'node:path';
import { describeFlow } from '../flow/describe.js';
import { formatProblem } from '../flow/problems.js';
import { validateFlow } from '../flow/validate.js';
import { COMMON, EXTENSIONS, parse } from './args.js';
import type { Command } from './commands.js';
import { builtinNames, loadExtensions, toolNames } from './extensions.js';

/**
 * `validate FLOW.yaml`: prints every problem on stderr, one per line; exit 0 when valid, else 2. With
 * `--json` it also prints one JSON object on stdout (docs/cli.md): `{file, valid, problems, flow?}`,
 * `--tools MODULE` names local tools the flow may use, `--guards MODULE` is loaded and checked as by `run`;
 * `flow` being the flow's published interface (input schema, each node's outputs with their schemas,
 * `outputsSchema`) whenever the file loaded.
 */
export const validate: Command = async (argv) => {
  const parsed = parse(
    'validate',
    argv,
    { ...COMMON, ...EXTENSIONS, offline: { type: 'boolean' } },
    { min: 1, max: 1, names: 'FLOW.yaml' },
  );
  const file = parsed.positionals[0] as string;
  const extensions = await loadExtensions(parsed);
  const result = await validateFlow(resolve(file), {
    servers: parsed.values.offline !== true,
    knownTools: toolNames(extensions),
    builtins: builtinNames(extensions),
  });
  for (const problem of result.problems) process.stderr.write(`${formatProblem(problem)}\n`);
  for (const warning of result.warnings) process.stderr.write(`warning: ${formatProblem(warning)}\n`);
  if (parsed.values.json === true) {
    const report = {
      file,
      valid: result.problems.length === 0,
      problems: result.problems,
      warnings: result.warnings,
      ...(result.loaded ? { flow: describeFlow(result.loaded.flow) } : {}),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  }
  if (result.problems.length > 0) {
    process.stderr.write(
      `${file}: ${result.problems.length} problem${result.problems.length === 1 ? '' : 's'}\n`,
    );
    return 2;
  }
  process.stderr.write(`${file}: valid\n`);
  return 0;
};
