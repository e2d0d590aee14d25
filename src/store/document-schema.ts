import { z } from 'zod';

/**
 * The shape of the persisted state document at the current version (graph/state-doc.ts), checked
 * when a run is loaded. Objects are loose: a field this schema does not name is kept as it is, so the
 * check can never drop data; it only refuses a document whose known fields have the wrong type.
 */

const jsonObject = z.record(z.string(), z.unknown());
const stringMap = z.record(z.string(), z.string());

const approval = z.looseObject({
  fingerprint: z.string(),
  tool: z.string(),
  args: jsonObject,
  nodeId: z.string(),
  consumed: z.boolean(),
});

const inFlight = z.looseObject({
  fingerprint: z.string(),
  tool: z.string(),
  args: jsonObject,
  key: z.string(),
  nodeId: z.string(),
  callId: z.string(),
});

const followUp = z.looseObject({
  question: z.string(),
  options: z.array(z.string()).nullable(),
  answer: z.string(),
  nodeId: z.string(),
});

const runPart = z.looseObject({
  runId: z.string(),
  approvals: z.array(approval),
  inFlight: z.array(inFlight),
  followUps: z.array(followUp),
  inputTexts: z.array(z.string()),
  nodeOutputs: z.record(z.string(), jsonObject),
});

const gatedCall = z.looseObject({
  tool: z.string(),
  args: jsonObject,
  fingerprint: z.string(),
  provenance: stringMap,
});

const pendingWrite = z.looseObject({
  tool: z.string(),
  fingerprint: z.string(),
  verifyTool: z.string(),
  done: z.string(),
});

const nodePart = z.looseObject({
  nodeId: z.string(),
  rounds: z.number(),
  stalls: z.number(),
  fingerprintCounts: z.record(z.string(), z.number()),
  gatedCall: gatedCall.nullable(),
  pendingWrites: z.array(pendingWrite),
  outputs: jsonObject,
  approvedWriteFailed: z.boolean(),
});

const toolCall = z.looseObject({ callId: z.string(), tool: z.string(), rawArgs: z.string() });

const suspendedCall = z.looseObject({
  round: z.number(),
  callId: z.string(),
  tool: z.string(),
  kind: z.enum(['APPROVAL', 'FOLLOW_UP']),
});

const loopPart = z.looseObject({
  wave: z.looseObject({ round: z.number(), calls: z.array(toolCall), next: z.number() }).nullable(),
  suspended: suspendedCall.nullable(),
  resolved: z.looseObject({ call: suspendedCall, observation: jsonObject }).nullable(),
});

/** The state document of version 1 (today's). */
export const StateDocV1Schema = z.looseObject({
  schema: z.literal(1),
  run: runPart,
  nodeId: z.string().nullable(),
  nodeRuns: z.number().int().nonnegative(),
  node: nodePart.nullable(),
  loop: loopPart,
  modelCalls: z.number(),
  cost: z.number().optional(),
  parentCallId: z.string().optional(),
  traceparent: z.string().optional(),
  cancelRequested: z.literal(true).optional(),
  forkedFrom: z.looseObject({ runId: z.string(), seq: z.number().int() }).optional(),
  reply: z.string().optional(),
  thread: z
    .looseObject({
      id: z.string(),
      history: z.array(z.looseObject({ role: z.enum(['user', 'assistant']), text: z.string() })),
    })
    .optional(),
});

/** The pending item of a suspended run, as the run summary shows it. */
export const SuspensionSchema = z.looseObject({
  kind: z.enum(['APPROVAL', 'FOLLOW_UP']),
  pending: z.union([
    z.looseObject({ tool: z.string(), args: jsonObject, summary: z.string() }),
    z.looseObject({ question: z.string(), options: z.array(z.string()).nullable() }),
  ]),
});
