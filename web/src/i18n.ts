/**
 * The console's texts in zh-CN and en. The language follows the browser until the person picks one
 * (kept in localStorage); `<html lang>` follows it so screen readers pronounce the texts correctly.
 */
import { createContext, useContext } from 'react';

export const LOCALES = ['zh-CN', 'en'] as const;
export type Locale = (typeof LOCALES)[number];

const en = {
  appTitle: 'Agent runtime console',
  skipToContent: 'Skip to content',
  language: 'Language',
  signedInAs: 'Signed in as {name} ({role})',
  tenant: 'tenant {tenant}',
  signOut: 'Sign out',
  loginTitle: 'Sign in',
  loginHelp:
    'Paste an API token of this server (ask its administrator). It is kept in this browser tab only.',
  tokenLabel: 'API token',
  signIn: 'Sign in',
  signingIn: 'Signing in…',
  badToken: 'This token was not accepted: {message}',
  roleUnknown:
    'This server does not say which role your token has (GET /v1/me is missing), so actions are hidden.',
  navRuns: 'Runs',
  inboxTitle: 'Waiting for you',
  inboxTitleViewer: 'Waiting for a person',
  inboxEmpty: 'Nothing is waiting for a decision.',
  inboxApproval: 'Approval: {tool}',
  inboxFollowUp: 'Question: {question}',
  runsTitle: 'All runs',
  filterLabel: 'Show runs by status',
  filterAll: 'All',
  noRuns: 'No runs.',
  colRun: 'Run',
  colFlow: 'Flow',
  colStatus: 'Status',
  colWaiting: 'Waiting for',
  colUpdated: 'Updated',
  colCreated: 'Created',
  loading: 'Loading…',
  loadFailed: 'Could not load: {message}',
  retry: 'Retry',
  status_running: 'Running',
  status_suspended: 'Waiting',
  status_completed: 'Completed',
  status_failed: 'Failed',
  status_cancelled: 'Cancelled',
  kind_APPROVAL: 'approval',
  kind_FOLLOW_UP: 'answer',
  backToRuns: '← All runs',
  runTitle: 'Run {id}',
  flowLabel: 'Flow',
  inputLabel: 'Input',
  usageLabel: 'Tokens',
  createdLabel: 'Started',
  updatedLabel: 'Updated',
  parentLabel: 'Parent run',
  cancelRun: 'Cancel run',
  retryRun: 'Retry',
  confirmRetry: 'Retry this run? It continues in the node that failed, with what it has so far.',
  confirmCancel: 'Cancel this run? It stops at once and cannot be continued.',
  live_connecting: 'Connecting…',
  live_live: 'Live',
  live_reconnecting: 'Reconnecting…',
  live_ended: 'Run ended',
  live_error: 'Event stream stopped: {message}',
  graphTitle: 'Nodes',
  node_running: 'running',
  node_suspended: 'waiting',
  node_completed: 'completed',
  node_failed: 'failed',
  stallsLabel: 'Stalls',
  stallsOf: '{stalls} of {max}',
  stallsNoLimit: '{stalls} (limit shown after the first stall)',
  roundsLabel: '{count} rounds',
  timelineTitle: 'Timeline',
  roundTitle: 'Round {round}',
  modelSaid: 'Model',
  phaseHint: 'Hint',
  noToolCalls: 'The model called no tool (counts one stall).',
  stallAfter: 'Stall {stalls} of {max}',
  argsLabel: 'Arguments',
  codeLabel: 'Code',
  reasonLabel: 'Reason',
  nextLabel: 'Next step',
  evidenceLabel: 'Evidence',
  notExecuted: 'not executed',
  lookBack: 'look-back',
  skipped: 'Skipped: an earlier call of this round did not succeed.',
  waitingCall: 'Waiting for a person…',
  outcome_SUCCESS: 'SUCCESS',
  outcome_FAILED: 'FAILED',
  outcome_REJECTED: 'REJECTED',
  outcome_DEFERRED: 'DEFERRED',
  recovery: 'Taken over after a crash (recovery).',
  nodeCompleted: 'Node {node} completed.',
  nodeFailed: 'Node {node} failed: {reason}',
  runCompleted: 'The run completed.',
  runFailed: 'The run failed: {reason}',
  runCancelled: 'The run was cancelled.',
  outputsTitle: 'Outputs',
  noOutputs: 'No outputs yet.',
  approvalTitle: 'Approval needed: {tool}',
  approvalIntro: 'The agent asks to run exactly this call. Nothing is written until you approve.',
  modelSummary: "Model's summary",
  toolLabel: 'Tool',
  argName: 'Argument',
  argValue: 'Value',
  argSource: 'Comes from',
  fromEvidence: 'evidence {id}',
  evidenceTool: '{id} ({tool})',
  noEvidence: 'not checked against evidence',
  allArgs: 'All arguments (JSON)',
  commentLabel: 'Comment (optional)',
  approve: 'Approve',
  reject: 'Reject',
  sending: 'Sending…',
  viewerCannotDecide: 'Your role ({role}) may read this run but not decide.',
  followUpTitle: 'The agent asks',
  optionsLabel: 'Answer with one of the options',
  answerLabel: 'Or write an answer',
  sendAnswer: 'Send answer',
  decidedApproved: 'Approved by {who} at {when}',
  decidedRejected: 'Rejected by {who} at {when}',
  answeredBy: 'Answered by {who} at {when}',
  someone: 'someone',
  commentWas: 'Comment: {comment}',
  answerWas: 'Answer: {answer}',
  conflict:
    'The run is no longer waiting for this (someone else may have answered). The page shows what happened.',
  actionFailed: 'Not sent: {message}',
  newRun: 'Start a run',
  flowSelect: 'Flow',
  inputText: 'Input text',
  start: 'Start',
  noFlows: 'No flows are registered on this server.',
} as const;

export type MessageKey = keyof typeof en;

const zh: Record<MessageKey, string> = {
  appTitle: '智能体运行时控制台',
  skipToContent: '跳到正文',
  language: '语言',
  signedInAs: '当前用户 {name}（{role}）',
  tenant: '租户 {tenant}',
  signOut: '退出',
  loginTitle: '登录',
  loginHelp: '粘贴此服务器的 API 令牌（向管理员索取）。令牌只保存在当前浏览器标签页中。',
  tokenLabel: 'API 令牌',
  signIn: '登录',
  signingIn: '正在登录…',
  badToken: '令牌未被接受：{message}',
  roleUnknown: '此服务器未提供令牌的角色（缺少 GET /v1/me），因此隐藏了操作按钮。',
  navRuns: '运行',
  inboxTitle: '等待你处理',
  inboxTitleViewer: '等待人工处理',
  inboxEmpty: '没有等待处理的事项。',
  inboxApproval: '审批：{tool}',
  inboxFollowUp: '问题：{question}',
  runsTitle: '全部运行',
  filterLabel: '按状态筛选运行',
  filterAll: '全部',
  noRuns: '没有运行。',
  colRun: '运行',
  colFlow: '流程',
  colStatus: '状态',
  colWaiting: '等待',
  colUpdated: '更新时间',
  colCreated: '创建时间',
  loading: '加载中…',
  loadFailed: '加载失败：{message}',
  retry: '重试',
  status_running: '运行中',
  status_suspended: '等待中',
  status_completed: '已完成',
  status_failed: '已失败',
  status_cancelled: '已取消',
  kind_APPROVAL: '审批',
  kind_FOLLOW_UP: '回答',
  backToRuns: '← 全部运行',
  runTitle: '运行 {id}',
  flowLabel: '流程',
  inputLabel: '输入',
  usageLabel: '令牌用量',
  createdLabel: '开始于',
  updatedLabel: '更新于',
  parentLabel: '父运行',
  cancelRun: '取消运行',
  retryRun: '重试',
  confirmRetry: '重试此运行？它将在失败的节点继续，保留已有的进展。',
  confirmCancel: '确定取消此运行？它会立即停止，且无法继续。',
  live_connecting: '正在连接…',
  live_live: '实时',
  live_reconnecting: '正在重新连接…',
  live_ended: '运行已结束',
  live_error: '事件流已停止：{message}',
  graphTitle: '节点',
  node_running: '运行中',
  node_suspended: '等待中',
  node_completed: '已完成',
  node_failed: '已失败',
  stallsLabel: '停滞',
  stallsOf: '{stalls} / {max}',
  stallsNoLimit: '{stalls}（首次停滞后显示上限）',
  roundsLabel: '{count} 轮',
  timelineTitle: '时间线',
  roundTitle: '第 {round} 轮',
  modelSaid: '模型',
  phaseHint: '提示',
  noToolCalls: '模型没有调用工具（计一次停滞）。',
  stallAfter: '停滞 {stalls} / {max}',
  argsLabel: '参数',
  codeLabel: '错误码',
  reasonLabel: '原因',
  nextLabel: '下一步',
  evidenceLabel: '证据',
  notExecuted: '未执行',
  lookBack: '回查',
  skipped: '已跳过：本轮较早的调用未成功。',
  waitingCall: '等待人工处理…',
  outcome_SUCCESS: '成功 SUCCESS',
  outcome_FAILED: '失败 FAILED',
  outcome_REJECTED: '拒绝 REJECTED',
  outcome_DEFERRED: '暂缓 DEFERRED',
  recovery: '进程崩溃后被接管（恢复）。',
  nodeCompleted: '节点 {node} 已完成。',
  nodeFailed: '节点 {node} 失败：{reason}',
  runCompleted: '运行已完成。',
  runFailed: '运行失败：{reason}',
  runCancelled: '运行已取消。',
  outputsTitle: '产出',
  noOutputs: '尚无产出。',
  approvalTitle: '需要审批：{tool}',
  approvalIntro: '智能体申请执行下面这个调用。批准之前不会写入任何内容。',
  modelSummary: '模型的说明',
  toolLabel: '工具',
  argName: '参数',
  argValue: '值',
  argSource: '来源',
  fromEvidence: '证据 {id}',
  evidenceTool: '{id}（{tool}）',
  noEvidence: '未按证据校验',
  allArgs: '全部参数（JSON）',
  commentLabel: '备注（可选）',
  approve: '批准',
  reject: '拒绝',
  sending: '正在提交…',
  viewerCannotDecide: '你的角色（{role}）可以查看此运行，但不能做决定。',
  followUpTitle: '智能体提问',
  optionsLabel: '选择一个选项作答',
  answerLabel: '或者输入回答',
  sendAnswer: '发送回答',
  decidedApproved: '{who} 于 {when} 批准',
  decidedRejected: '{who} 于 {when} 拒绝',
  answeredBy: '{who} 于 {when} 回答',
  someone: '某人',
  commentWas: '备注：{comment}',
  answerWas: '回答：{answer}',
  conflict: '运行已不在等待此项（可能已有他人处理）。页面显示了实际发生的情况。',
  actionFailed: '未提交：{message}',
  newRun: '启动运行',
  flowSelect: '流程',
  inputText: '输入文本',
  start: '启动',
  noFlows: '此服务器没有注册流程。',
};

const TABLES: Record<Locale, Record<MessageKey, string>> = { en, 'zh-CN': zh };

/** A translate function: the text of `key` in the locale with `{name}` placeholders filled. */
export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

/** Builds the translate function of a locale. */
export function translator(locale: Locale): Translate {
  const table = TABLES[locale];
  return (key, params = {}) =>
    table[key].replace(/\{(\w+)\}/g, (whole, name: string) =>
      name in params ? String(params[name]) : whole,
    );
}

/** The locale to start with: the saved choice, else the browser's language. */
export function initialLocale(): Locale {
  const saved = localStorage.getItem('g2rain.locale');
  if (saved === 'en' || saved === 'zh-CN') return saved;
  return navigator.language.toLowerCase().startsWith('zh') ? 'zh-CN' : 'en';
}

/** Saves the choice and updates `<html lang>`. */
export function applyLocale(locale: Locale): void {
  localStorage.setItem('g2rain.locale', locale);
  document.documentElement.lang = locale;
}

/** Formats an ISO time as local `YYYY-MM-DD HH:mm:ss` (unambiguous in both languages). */
export function formatTime(_locale: Locale, iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}

/** What components need of the language. */
export interface I18n {
  locale: Locale;
  t: Translate;
  setLocale: (locale: Locale) => void;
}

export const I18nContext = createContext<I18n>({
  locale: 'en',
  t: translator('en'),
  setLocale: () => undefined,
});

/** The current language. */
export function useI18n(): I18n {
  return useContext(I18nContext);
}
