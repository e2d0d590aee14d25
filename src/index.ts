/**
 * The public API of g2rain-agent-runtime (README.md). Every export here is public; heavy adapters
 * live behind subpath exports.
 */
import './node-guard.js';
export { createRuntime, Runtime, type CreateRuntimeOptions } from './runtime/create.js';
export type { StartOptions, RespondOptions } from './runtime/runtime.js';
export type { Clock, IdSource } from './engine/seams.js';
export type { Env } from './runtime/config.js';
export type { TelemetryOptions } from './telemetry/load.js';
export type { ModelDeltaEvent } from './trace/live.js';
export type { RunSummary } from './records/summary.js';
export type { RunMessage } from './records/run-message.js';
export type { ThreadView, ThreadListItem, ThreadMessage, ThreadMessageKind } from './runtime/threads.js';
export { AgentRuntimeError, RunError, type RunErrorCode, type RunErrorOptions } from './runtime/errors.js';
export { loadFlow, loadFlowText, type LoadedFlow, type LoadFlowOptions } from './flow/load.js';
export { defineFlow } from './flow/define.js';
export { flowBuilder, FlowBuilder } from './flow/builder.js';
export type { EdgeOptions, EdgeTarget, FlowSettings, OutputsOfNode } from './flow/builder.js';
export type { EdgeCondition, EdgeConditionScope } from './domain/edge-condition.js';
export type {
  CodeFlowInput,
  CodeFlowNode,
  CodeOutputContract,
  FlowOutputs,
  RunOutputs,
} from './flow/typed-outputs.js';
export { validateFlow, type FlowValidation, type ValidateFlowOptions } from './flow/validate.js';
export { FlowError, type FlowErrorCode, type FlowProblem } from './flow/problems.js';
export { resolveRunInput } from './flow/input.js';
export { scriptedModel, loadScriptedModel, type Script, type ScriptedTurn } from './model/scripted.js';
export { aiSdkModel, type AiSdkModelOptions } from './model/ai-sdk/adapter.js';
export {
  createProviderRegistry,
  type ProviderRegistryOptions,
  type ProviderResolver,
} from './model/providers.js';
export { ModelError, type ModelErrorCode, type ModelErrorOptions } from './model/errors.js';
export type {
  ModelClient,
  ModelRequest,
  ModelDelta,
  ModelResult,
  ModelCallContext,
  ModelTool,
  ModelToolCall,
  ConversationMessage,
  TokenUsage,
} from './model/model.js';
export {
  defineTool,
  ToolDefinitionError,
  type LocalTool,
  type DefineToolOptions,
  type DefineZodToolOptions,
  type ToolDescriptor,
  type LocalToolContext,
} from './tools/tool.js';
export { ToolRejectedException } from './tools/rejected.js';
export {
  defineGuard,
  GuardDefinitionError,
  type Guard,
  type GuardSpec,
  type GuardCodes,
  type GuardCodeSpec,
  type GuardOutcome,
  type GuardArgs,
  type GuardCallView,
  type GuardResult,
  type BeforeCall,
  type AfterCall,
  type GuardAnswer,
} from './tools/user-guards/define.js';
export type { GuardVerdict } from './tools/user-guards/verdict.js';
export {
  defineBuiltin,
  BuiltinDefinitionError,
  type BuiltinAnswer,
  type BuiltinCall,
  type BuiltinCodes,
  type BuiltinCodeSpec,
  type BuiltinCodeOutcome,
  type BuiltinSpec,
  type UserBuiltin,
} from './tools/builtin/user.js';
export type { BuiltinInput, BuiltinProperty } from './tools/builtin/define.js';
export { USER_CODE_RANGE } from './domain/guard-codes.js';
export { Outcome, type OutcomeName } from './domain/outcome.js';
export { Observation, type ObservationJSON } from './domain/observation.js';
export type { ToolImage } from './domain/tool-image.js';
export { RuntimeErrorCode, code, type RuntimeErrorCodeName } from './domain/error-codes.js';
export { hint, type HintKey } from './domain/hints.js';
export type { Locale } from './domain/locale.js';
export type { Flow, FlowInput, ToolPolicy, FlowNode, FlowEdge } from './domain/flow.js';
export type { TraceEvent, EventPayload } from './trace/events.js';
export type { EvidenceRecord } from './records/run-state.js';
export type { CodeStep, CodeStepContext, CodeToolResult } from './domain/code-step.js';
export { DEFAULT_RESULT_BYTES } from './trace/result.js';
export { createStderrLogger, silentLogger, type Logger, type LogLevel } from './log/logger.js';
export {
  openStore,
  resolveDbUrl,
  MemoryStore,
  SqliteStore,
  StoreError,
  type StoreErrorCode,
  type StoreErrorOptions,
  type Store,
  type RunRecord,
  type RunStatus,
  type StoredEvent,
  type ThreadFilter,
  type ThreadRecord,
  type WebhookOutbox,
  type WebhookDelivery,
} from './store/index.js';
export {
  runEval,
  EVAL_VARIANTS,
  type EvalOptions,
  type EvalModel,
  type EvalVariantName,
} from './eval/run-eval.js';
export {
  checkSuite,
  loadSuiteFile,
  EvalSuiteError,
  SuiteSchema,
  type Suite,
  type SuiteCase,
  type LoadedSuite,
} from './eval/suite.js';
export {
  EvalResultsSchema,
  type EvalResults,
  type EvalCell,
  type EvalTrial,
  type EvalVariant,
} from './eval/results.js';
export { caseFromRun } from './eval/from-run.js';
export type { Ablation } from './engine/ablation.js';
export type { ObservationStyle } from './loop/render.js';
