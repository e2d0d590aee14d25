import { z } from 'zod';
import type { ObservationJSON } from '../domain/observation.js';

/** A tool call the model asked for, as persisted in a wave and in the conversation. */
export const ModelToolCallSchema = z.object({
  callId: z.string(),
  tool: z.string(),
  rawArgs: z.string(),
});
export type ModelToolCall = z.infer<typeof ModelToolCallSchema>;

/** A wave of tool calls being handled; `next` is the first call not handled yet (for resumption). */
export const WaveSchema = z.object({
  round: z.number(),
  calls: z.array(ModelToolCallSchema),
  next: z.number(),
});
export type Wave = z.infer<typeof WaveSchema>;

/** The call that suspended the node, waiting for a person. */
export const SuspendedCallSchema = z.object({
  round: z.number(),
  callId: z.string(),
  tool: z.string(),
  args: z.record(z.string(), z.unknown()),
  kind: z.enum(['APPROVAL', 'FOLLOW_UP', 'TASK']),
  /** The gated call's fingerprint for an approval. */
  fingerprint: z.string().optional(),
  /** True for the runtime's own question after an interrupted write (docs/durability.md): no tool call behind it. */
  runtimeQuestion: z.boolean().optional(),
  /** Set when a delegated child run suspended: the person's response goes to that run. */
  childRunId: z.string().optional(),
  /** The fingerprint the suspending call added to the node run's count (its tool message comes later). */
  counted: z.string().optional(),
});
export type SuspendedCall = z.infer<typeof SuspendedCallSchema>;

const isObject = (value: unknown): boolean =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A suspending call the person has responded to, waiting to be counted by the loop. */
export const ResolvedCallSchema = z.object({
  call: SuspendedCallSchema,
  /** The call's final observation (persisted form). */
  observation: z.custom<ObservationJSON>(isObject, 'expected an observation object'),
});
export type ResolvedCall = z.infer<typeof ResolvedCallSchema>;

/** The loop's own persisted position inside a node run. */
export const LoopStateSchema = z.object({
  wave: WaveSchema.nullable(),
  suspended: SuspendedCallSchema.nullable(),
  resolved: ResolvedCallSchema.nullable(),
});
export type LoopState = z.infer<typeof LoopStateSchema>;

export function newLoopState(): LoopState {
  return { wave: null, suspended: null, resolved: null };
}
