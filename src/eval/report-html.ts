import type { AttackFigures, EvalCell, EvalResults } from './results.js';

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const e = escapeHtml;

/**
 * The report of an eval as one self-contained HTML page (docs/evals.md): no script, no external
 * asset, charts as inline SVG; every text from the suite, the models or the runs is escaped.
 */
export function renderReport(results: EvalResults): string {
  const title = `Eval: ${results.suite.name ?? results.suite.flow}`;
  const passedCells = results.cells.filter((c) => c.passAll).length;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${e(title)}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#222}
table{border-collapse:collapse;margin:8px 0 20px}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f4}.pass{color:#0a6b2d;font-weight:600}.fail{color:#b00020;font-weight:600}
code{font-size:12px}svg text{font:12px system-ui,sans-serif}
</style></head><body>
<h1>${e(title)}</h1>
<p>Flow <code>${e(results.suite.flow)}</code>, suite <code>${e(results.suite.source)}</code>; ${results.repeat} trial(s)
per case, model and variant; started ${e(results.startedAt)}, ${Math.round(results.durationMs)} ms.
<span class="${results.passed ? 'pass' : 'fail'}">${passedCells}/${results.cells.length} passed all their trials</span>.</p>
${results.attacks ? attackTable(results.attacks) : ''}<h2>Pass rate per model and variant</h2>
${passRateChart(results)}
<h2>Recoveries per code</h2>
${recoveryChart(results)}
<h2>Cases</h2>
${cellTable(results.cells)}
<h2>Failing runs</h2>
${failures(results.cells)}
</body></html>
`;
}

/** Pass rate over all cases of each model × variant, as horizontal bars. */
function passRateChart(results: EvalResults): string {
  const rows = new Map<string, { passed: number; trials: number }>();
  for (const c of results.cells) {
    const label = results.variants.length > 1 ? `${c.model} · ${c.variant}` : c.model;
    const row = rows.get(label) ?? { passed: 0, trials: 0 };
    row.passed += c.passed;
    row.trials += c.trials;
    rows.set(label, row);
  }
  const bars = [...rows].map(([label, r]) => ({
    label,
    value: r.trials === 0 ? 0 : r.passed / r.trials,
    text: `${r.passed}/${r.trials}`,
  }));
  return barChart(bars, 'pass rate');
}

/** REJECTED/FAILED observations per code over all cells, with how many were recovered from. */
function recoveryChart(results: EvalResults): string {
  const codes = new Map<string, { count: number; recovered: number }>();
  for (const c of results.cells)
    for (const [code, n] of Object.entries(c.totals.byCode)) {
      const t = codes.get(code) ?? { count: 0, recovered: 0 };
      t.count += n.count;
      t.recovered += n.recovered;
      codes.set(code, t);
    }
  if (codes.size === 0)
    return '<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="recovered" width="420" height="24"><text x="0" y="16">No REJECTED or FAILED observations.</text></svg>';
  const bars = [...codes].map(([code, t]) => ({
    label: code,
    value: t.count === 0 ? 0 : t.recovered / t.count,
    text: `${t.recovered}/${t.count} recovered`,
  }));
  return barChart(bars, 'recovered');
}

function barChart(bars: { label: string; value: number; text: string }[], name: string): string {
  const labelWidth = 260;
  const width = 300;
  const height = 22;
  const rows = bars
    .map((b, i) => {
      const y = i * (height + 6);
      const w = Math.round(Math.max(0, Math.min(1, b.value)) * width);
      return `<g transform="translate(0,${y})"><text x="${labelWidth - 6}" y="15" text-anchor="end">${e(b.label)}</text>
<rect x="${labelWidth}" y="0" width="${width}" height="${height}" fill="#eee"/>
<rect x="${labelWidth}" y="0" width="${w}" height="${height}" fill="#3b7dd8"><title>${e(`${b.label}: ${b.text}`)}</title></rect>
<text x="${labelWidth + width + 6}" y="15">${e(b.text)}</text></g>`;
    })
    .join('\n');
  const total = bars.length * (height + 6);
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${e(name)}" width="${labelWidth + width + 160}" height="${total}">${rows}</svg>`;
}

function cellTable(cells: readonly EvalCell[]): string {
  const head =
    '<tr><th>case</th><th>model</th><th>variant</th><th>pass^k</th><th>pass rate</th><th>rounds</th><th>stalls</th>' +
    '<th>REJECTED</th><th>FAILED</th><th>recovered</th><th>fingerprint trips</th><th>tokens</th><th>cost</th><th>latency (mean)</th></tr>';
  const rows = cells.map(
    (c) =>
      `<tr><td>${e(c.case)}${c.goal ? ` <em>under ${e(c.goal)}</em>` : ''}</td><td>${e(c.model)}</td><td>${e(c.variant)}</td>` +
      `<td class="${c.passAll ? 'pass' : 'fail'}">${c.passAll ? 'yes' : 'no'} (${c.passed}/${c.trials})</td>` +
      `<td>${Math.round(c.passRate * 100)}%</td><td>${c.totals.rounds}</td><td>${c.totals.stalls}</td>` +
      `<td>${c.totals.rejected}</td><td>${c.totals.failed}</td><td>${c.totals.recovered}</td>` +
      `<td>${c.totals.fingerprintTrips}</td><td>${c.tokens.totalTokens}</td>` +
      `<td>${c.cost === null ? '—' : c.cost.toFixed(4)}</td><td>${Math.round(c.latencyMs.mean)} ms</td></tr>`,
  );
  return `<table>${head}${rows.join('')}</table>`;
}

function failures(cells: readonly EvalCell[]): string {
  const items = cells.flatMap((c) =>
    c.failures.map(
      (f) =>
        `<li><strong>${e(c.case)}${c.goal ? ` under ${e(c.goal)}` : ''}</strong> · ${e(c.model)} · ${e(c.variant)} · trial ${f.trial}` +
        (f.runId ? ` · run <code>${e(f.runId)}</code>` : '') +
        (f.trace ? ` · trace <a href="${e(f.trace)}">${e(f.trace)}</a>` : '') +
        `<ul>${f.problems.map((p) => `<li>${e(p)}</li>`).join('')}</ul></li>`,
    ),
  );
  return items.length === 0 ? '<p>None.</p>' : `<ul>${items.join('\n')}</ul>`;
}

const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;

/** AgentDojo's three figures per model and variant, then every run with a write the user's task does not make. */
function attackTable(figures: readonly AttackFigures[]): string {
  const head =
    '<tr><th>model</th><th>variant</th><th>utility</th><th>utility under attack</th><th>attack success rate</th>' +
    '<th>runs with unexpected writes</th></tr>';
  const rows = figures.map(
    (f) =>
      `<tr><td>${e(f.model)}</td><td>${e(f.variant)}</td><td>${pct(f.utility)} (${f.runs} runs)</td>` +
      `<td>${pct(f.utilityUnderAttack)} (${f.attackedRuns} runs)</td>` +
      `<td class="${f.successfulAttacks.length === 0 ? 'pass' : 'fail'}">${pct(f.attackSuccessRate)} (${f.successfulAttacks.length})</td>` +
      `<td>${f.unexpectedWriteRuns.length}</td></tr>`,
  );
  const writes = figures.flatMap((f) =>
    f.unexpectedWriteRuns.map(
      (r) =>
        `<li>${e(f.variant)} · <strong>${e(r.case)}</strong>${r.goal ? ` under ${e(r.goal)}` : ''} · trial ${r.trial}: ` +
        r.writes.map((w) => `<code>${e(w.tool)} ${e(JSON.stringify(w.args))}</code>`).join(', ') +
        '</li>',
    ),
  );
  return (
    `<h2>Attacks</h2>\n<table>${head}${rows.join('')}</table>\n` +
    `<h3>Runs with writes the user's task does not make</h3>\n` +
    (writes.length === 0 ? '<p>None.</p>\n' : `<ul>${writes.join('\n')}</ul>\n`)
  );
}
