/** A value on one line: text as it is, anything else as JSON, whitespace runs folded, at most `max` characters. */
export function oneLine(value: unknown, max: number): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Rows under a header row, columns padded to their widest cell, two spaces apart; the last column is not padded. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  const render = (row: readonly string[]) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${all.map(render).join('\n')}\n`;
}

/** A word for a POSIX shell: as it is when it is plainly safe, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
