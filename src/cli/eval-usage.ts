/** The usage text of `eval` (`eval --help`). */
export const EVAL_USAGE = `usage: agent-runtime eval SUITE.yaml [--model M]... [--repeat N] [--concurrency C] [--out DIR]
                          [--observations typed|plain[,…]] [--guards on|off[,…]] [--json]
       agent-runtime eval --from-run RUN_ID [--db URL]

Runs every case of the suite --repeat times with each --model (default: the case's, the suite's, else
the flow's model), each trial in its own in-memory store, and writes DIR/results.json, DIR/report.html
and DIR/traces/ (default DIR: eval-results). --observations plain and --guards off add variants of the
runtime, reported side by side. --from-run prints a case made from a stored run (YAML).
exit codes: 0 every case passed all its trials, 1 one did not, 2 a suite or usage error (docs/evals.md).`;
