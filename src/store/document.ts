import type { z } from 'zod';
import { FlowSchema, type Flow } from '../domain/flow.js';
import { SuspensionSchema, type RunSuspension } from '../records/pending.js';
import { StateDocSchema, type RunStateDoc } from '../records/state-doc.js';
import { StoreError } from './store-error.js';

/**
 * The run-document codec (docs/design.md, "persisted formats"): the one place where the JSON a store
 * holds for a run becomes typed values. The state document carries its version in `schema`; a document
 * of an older version is upgraded step by step by the migrations below before it is checked, one of a
 * newer version is refused (never reinterpreted). The flow and the suspension are public formats (the
 * flow file format; the run summary's `suspension`) that only ever grow compatibly, so they are
 * checked against their current schema without a version of their own.
 *
 * Decoding happens when a run is loaded, not on every commit: a commit that writes the state hands the
 * caller's own (already typed) document back.
 */

/** The version of the state document this runtime writes. */
export const RUN_DOCUMENT_VERSION = 1;

export type { RunSuspension };

/** A state document as stored, before it is checked: a JSON object. */
export type RawDocument = Record<string, unknown>;

/**
 * Upgrades a state document of version `n` to version `n + 1` (and sets `schema` to it). A migration
 * is pure and total over every document its version can hold: it never reads the clock or the flow.
 */
export type Migration = (doc: RawDocument) => RawDocument;

/** The versions a codec reads: the latest and, for every older one, how to get from it to the next. */
export interface DocumentVersions {
  latest: number;
  /** `version → upgrade to version + 1`, for every version from the oldest readable one to `latest - 1`. */
  migrations: ReadonlyMap<number, Migration>;
}

/** Today's registry: version 1 is the first, so there is nothing to upgrade yet. */
export const DOCUMENT_VERSIONS: DocumentVersions = {
  latest: RUN_DOCUMENT_VERSION,
  migrations: new Map<number, Migration>(),
};

/**
 * The state document at `versions.latest`, upgraded by the registered migrations. Throws StoreError
 * `DOCUMENT_TOO_NEW` for a newer document and `BAD_DOCUMENT` for one without a readable version.
 */
export function upgradeState(
  raw: unknown,
  runId: string,
  versions: DocumentVersions = DOCUMENT_VERSIONS,
): RawDocument {
  if (!isObject(raw)) throw badDocument(runId, 'its state is not a JSON object');
  const found = raw.schema;
  if (typeof found !== 'number' || !Number.isSafeInteger(found) || found < 1) {
    throw badDocument(runId, 'its state has no schema version');
  }
  if (found > versions.latest) {
    throw new StoreError(
      'DOCUMENT_TOO_NEW',
      `run ${runId} was saved by a newer g2rain-agent-runtime (run document version ${found}; this one ` +
        `reads up to ${versions.latest}): upgrade g2rain-agent-runtime to continue it`,
    );
  }
  let doc = raw;
  for (let version = found; version < versions.latest; version += 1) {
    const migrate = versions.migrations.get(version);
    if (!migrate) {
      throw badDocument(runId, `no upgrade from run document version ${version} is known`);
    }
    doc = migrate(doc);
    if (doc.schema !== version + 1) {
      throw new Error(`the migration from run document version ${version} did not reach ${version + 1}`);
    }
  }
  return doc;
}

/** The typed state document of a stored run (upgraded, then checked). Throws StoreError. */
export function decodeState(raw: unknown, runId: string): RunStateDoc {
  const doc = upgradeState(raw, runId);
  return valid(StateDocSchema, doc, runId, 'state');
}

/** The typed suspension of a stored run, or null. Throws StoreError `BAD_DOCUMENT`. */
export function decodeSuspension(raw: unknown, runId: string): RunSuspension | null {
  if (raw === null || raw === undefined) return null;
  return valid(SuspensionSchema, raw, runId, 'suspension');
}

/** The typed flow a run was started with (defaults applied). Throws StoreError `BAD_DOCUMENT`. */
export function decodeFlow(raw: unknown, runId: string): Flow {
  return checked(FlowSchema, raw, runId, 'flow');
}

/**
 * The document itself once it fits `schema`: not the parsed copy, so a field this version does not
 * name is kept as it is and the document is saved back byte for byte (the schemas have no defaults).
 */
function valid<S extends z.ZodType>(schema: S, raw: unknown, runId: string, part: string): z.output<S> {
  checked(schema, raw, runId, part);
  return raw as z.output<S>;
}

function checked<S extends z.ZodType>(schema: S, raw: unknown, runId: string, part: string): z.output<S> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
  throw badDocument(runId, `its ${part} does not fit this version${where}: ${issue?.message ?? 'invalid'}`);
}

function badDocument(runId: string, why: string): StoreError {
  return new StoreError('BAD_DOCUMENT', `run ${runId} cannot be read: ${why}`);
}

function isObject(value: unknown): value is RawDocument {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
