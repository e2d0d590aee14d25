/** The argument `key` as text: a string as is, null or absent as '', anything else as JSON. */
export function argText(args: Record<string, unknown>, key: string): string {
  const value = args[key];
  return typeof value === 'string'
    ? value
    : value === undefined || value === null
      ? ''
      : JSON.stringify(value);
}

/** The argument `key` when it is a string, else ''. */
export function argString(args: Record<string, unknown>, key: string): string {
  const value = args[key];
  return typeof value === 'string' ? value : '';
}
