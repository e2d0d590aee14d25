/** The usage text of `eval` (`eval --help`). */
export const EVAL_USAGE = `usage: agent-runtime eval SUITE.yaml [--model M]... [--repeat N] [--concurrency C] [--out DIR]
                          [--variant full|observations-plain|guards-off|observations-plain+guards-off[,…]]
                          [--tools MODULE]... [--guards MODULE]... [--json]
       agent-runtime eval --from-run RUN_ID [--db URL]

Runs every case of the suite --repeat times with each --model (default: the case's, the suite's, else
the flow's model), each trial in its own in-memory store, and writes DIR/results.json, DIR/report.html
and DIR/traces/ (default DIR: eval-results). --tools and --guards load local tools, builtins and guards
as for run; the suite's flow is checked with them (and its servers) before the first trial. --variant adds
variants of the runtime, reported side by side (default: full). --from-run prints a case made from a
stored run (YAML).
exit codes: 0 every case passed all its trials, 1 one did not, 2 a suite or usage error (docs/evals.md).`;
