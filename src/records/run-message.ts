import { z } from 'zod';

/**
 * A person's steering message to a running or suspended run (docs/approvals.md, "Steering"): kept by
 * the store from the moment it is accepted, numbered per run from 1, and read by the run at the start
 * of its next model round, where it reaches the model as the user's words.
 */
export const RunMessageSchema = z.object({
  runId: z.string(),
  /** Per run, from 1, in the order accepted. */
  seq: z.number().int().positive(),
  /** `msg_` and hex digits, unique across runs. */
  messageId: z.string(),
  text: z.string(),
  /** Who sent it (a token's name, the OS user of a local CLI), or null when unknown. */
  who: z.string().nullable(),
  /** When it was accepted (ISO 8601). */
  at: z.string(),
});
export type RunMessage = z.infer<typeof RunMessageSchema>;

/** What `addRunMessage` takes: a message without its seq, which the store gives. */
export type NewRunMessage = Omit<RunMessage, 'seq'>;

/** How many messages may be waiting to be read, counted above the seq the run has read up to. */
export interface PendingLimit {
  /** The highest seq the run has read (its state's `steerSeq`, 0 for none). */
  afterSeq: number;
  /** At most this many messages above `afterSeq`. */
  maxPending: number;
}
