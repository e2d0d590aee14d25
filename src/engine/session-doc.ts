import type { ConversationMessage } from '../model/model.js';
import type { RunStateDoc } from '../records/state-doc.js';

/**
 * The state as persisted: without the node run's fingerprint counts, which grow with every distinct
 * call and are rebuilt from the conversation's `counted` marks on load (so a step's write stays small).
 */
export function persistedDoc(doc: RunStateDoc): RunStateDoc {
  const branches = doc.branches?.map((b) =>
    b.node ? { ...b, node: { ...b.node, fingerprintCounts: {} } } : b,
  );
  const out = branches ? { ...doc, branches } : doc;
  if (!out.node) return out;
  return { ...out, node: { ...out.node, fingerprintCounts: {} } };
}

/** The fingerprint counts of a node run, from its tool messages. */
export function countFingerprints(
  messages: readonly ConversationMessage[],
  pending: readonly (string | undefined)[],
): Record<string, number> {
  const counts: Record<string, number> = {};
  const add = (fp: string) => (counts[fp] = (counts[fp] ?? 0) + 1);
  for (const m of messages) if (m.role === 'tool' && m.counted) add(m.counted);
  for (const fp of pending) if (fp) add(fp);
  return counts;
}
