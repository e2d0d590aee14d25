/**
 * References inside node instructions (docs/flows.md): `{{nodes.<id>.outputs}}`, `{{nodes.<id>.outputs.<key>…}}`,
 * `{{input}}`, `{{input.<field>…}}` and, in a map's body, `{{item}}` / `{{item.<field>…}}` (further `.x` segments go into the value; src/graph/templates.ts fills them). White space inside the braces is allowed. Anything else inside
 * `{{ }}` is a problem of the flow, so a typo never reaches the model as literal text.
 */

/** One `{{…}}` found in a text. */
export type TemplateRef =
  | { readonly kind: 'node'; readonly raw: string; readonly node: string; readonly key?: string }
  | { readonly kind: 'input'; readonly raw: string; readonly path: readonly string[] }
  | { readonly kind: 'item'; readonly raw: string }
  | { readonly kind: 'invalid'; readonly raw: string };

const BRACES = /\{\{\s*([^{}]*?)\s*\}\}/g;
const NODE_REF = /^nodes\.([A-Za-z][A-Za-z0-9_-]*)\.outputs(?:\.([A-Za-z][A-Za-z0-9_-]*)(?:\.[\w-]+)*)?$/;
const INPUT_REF = /^input((?:\.[\w-]+)*)$/;
const ITEM_REF = /^item(?:\.[\w-]+)*$/;

/** Every `{{…}}` of `text`, in order. */
export function parseTemplateRefs(text: string): TemplateRef[] {
  const refs: TemplateRef[] = [];
  for (const match of text.matchAll(BRACES)) {
    const raw = match[0];
    const body = match[1] ?? '';
    const node = NODE_REF.exec(body);
    const input = INPUT_REF.exec(body);
    if (node?.[1])
      refs.push(
        node[2] ? { kind: 'node', raw, node: node[1], key: node[2] } : { kind: 'node', raw, node: node[1] },
      );
    else if (input)
      refs.push({ kind: 'input', raw, path: (input[1] ?? '').split('.').filter((s) => s !== '') });
    else if (ITEM_REF.test(body)) refs.push({ kind: 'item', raw });
    else refs.push({ kind: 'invalid', raw });
  }
  return refs;
}
