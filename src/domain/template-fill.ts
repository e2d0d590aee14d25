/** Placeholder values for a reason template. Missing placeholders are left visible as `{name}`. */
export type ReasonParams = Readonly<Record<string, string | number>>;

/** Fills `{name}` placeholders; unknown ones stay as they are. */
export function fill(template: string, params: ReasonParams): string {
  const parts = templateParts(template);
  if (parts.length === 1) return template;
  let out = parts[0] as string;
  for (let i = 1; i < parts.length; i += 2) {
    const key = parts[i] as string;
    const value = params[key];
    out += (value === undefined ? `{${key}}` : String(value)) + (parts[i + 1] as string);
  }
  return out;
}

/** Templates split once: literal, placeholder name, literal, … (the texts are a fixed set). */
const splitTemplates = new Map<string, readonly string[]>();
const MAX_SPLIT_TEMPLATES = 2000;

function templateParts(template: string): readonly string[] {
  let parts = splitTemplates.get(template);
  if (!parts) {
    parts = template.includes('{') ? template.split(/\{(\w+)\}/) : [template];
    if (splitTemplates.size < MAX_SPLIT_TEMPLATES) splitTemplates.set(template, parts);
  }
  return parts;
}
