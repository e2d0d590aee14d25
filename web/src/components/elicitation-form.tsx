import { useState, type FormEvent } from 'react';
import type { ElicitationPending } from '../api.js';
import { useI18n } from '../i18n.js';

/** One field of the server's requested schema (a flat object of primitives and enum lists). */
interface FieldSchema {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  oneOf?: { const?: unknown; title?: string }[];
  items?: { enum?: unknown[]; anyOf?: { const?: unknown; title?: string }[] };
  minimum?: number;
  maximum?: number;
}

/** The choices of an enum field: `[value, label]`. */
function choicesOf(field: FieldSchema): [string, string][] {
  const source = field.type === 'array' ? (field.items ?? {}) : field;
  if (Array.isArray(source.enum)) return source.enum.map((v) => [String(v), String(v)]);
  const alternatives = 'oneOf' in source ? source.oneOf : (source as FieldSchema['items'])?.anyOf;
  return (alternatives ?? []).map((a) => [String(a.const), a.title ?? String(a.const)]);
}

/** The form's starting values: each field's default, as the input holds it. */
function initialValues(properties: Record<string, FieldSchema>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(properties)) if ('default' in field) values[key] = field.default;
  return values;
}

/**
 * An MCP server's question (docs/mcp.md, "Elicitation"): a form built from its requested schema, or the
 * link it asks the person to open. Accepting sends the fields as a JSON object (the server checks and
 * fills defaults); decline and cancel send no content.
 */
export function ElicitationForm({
  elicitation,
  busy,
  onSend,
}: {
  elicitation: ElicitationPending;
  busy: boolean;
  onSend: (action: 'accept' | 'decline' | 'cancel', text: string) => void;
}) {
  const { t } = useI18n();
  const properties = (elicitation.requestedSchema?.properties ?? {}) as Record<string, FieldSchema>;
  const required = new Set((elicitation.requestedSchema?.required as string[] | undefined) ?? []);
  const [values, setValues] = useState<Record<string, unknown>>(() => initialValues(properties));
  const set = (key: string, value: unknown) => setValues((v) => ({ ...v, [key]: value }));
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    const content = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== '' && v !== undefined));
    onSend('accept', elicitation.mode === 'url' ? 'done' : JSON.stringify(content));
  };
  return (
    <form onSubmit={submit} className="elicitation-form" data-testid="elicitation-form">
      <p className="note">{t('elicitationFrom', { server: elicitation.server, tool: elicitation.tool })}</p>
      {elicitation.mode === 'url' ? (
        <p>
          <a href={elicitation.url} target="_blank" rel="noopener noreferrer">
            {elicitation.url}
          </a>
        </p>
      ) : (
        Object.entries(properties).map(([key, field]) => (
          <Field
            key={key}
            name={key}
            field={field}
            required={required.has(key)}
            value={values[key]}
            set={set}
          />
        ))
      )}
      <div className="buttons">
        <button type="submit" disabled={busy}>
          {elicitation.mode === 'url' ? t('elicitationDone') : t('elicitationAccept')}
        </button>
        <button type="button" disabled={busy} onClick={() => onSend('decline', '')}>
          {t('elicitationDecline')}
        </button>
        <button type="button" disabled={busy} onClick={() => onSend('cancel', '')}>
          {t('elicitationCancel')}
        </button>
      </div>
    </form>
  );
}

function Field({
  name,
  field,
  required,
  value,
  set,
}: {
  name: string;
  field: FieldSchema;
  required: boolean;
  value: unknown;
  set: (key: string, value: unknown) => void;
}) {
  const id = `elicit-${name}`;
  const label = `${field.title ?? name}${required ? ' *' : ''}`;
  const choices = choicesOf(field);
  let input;
  if (field.type === 'boolean') {
    input = (
      <input id={id} type="checkbox" checked={value === true} onChange={(e) => set(name, e.target.checked)} />
    );
  } else if (field.type === 'array' && choices.length > 0) {
    const picked = Array.isArray(value) ? (value as string[]) : [];
    input = (
      <select
        id={id}
        multiple
        value={picked}
        onChange={(e) =>
          set(
            name,
            [...e.target.selectedOptions].map((o) => o.value),
          )
        }
      >
        {choices.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
    );
  } else if (choices.length > 0) {
    input = (
      <select
        id={id}
        value={typeof value === 'string' ? value : ''}
        onChange={(e) => set(name, e.target.value)}
      >
        {!required && <option value="" />}
        {choices.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
    );
  } else if (field.type === 'number' || field.type === 'integer') {
    input = (
      <input
        id={id}
        type="number"
        step={field.type === 'integer' ? 1 : 'any'}
        min={field.minimum}
        max={field.maximum}
        value={typeof value === 'number' ? value : ''}
        onChange={(e) => set(name, e.target.value === '' ? undefined : Number(e.target.value))}
      />
    );
  } else {
    input = (
      <input
        id={id}
        type="text"
        required={required}
        value={typeof value === 'string' ? value : ''}
        onChange={(e) => set(name, e.target.value)}
      />
    );
  }
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {input}
      {field.description && <small>{field.description}</small>}
    </div>
  );
}
