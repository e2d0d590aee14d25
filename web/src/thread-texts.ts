/** The thread view's texts in zh-CN and en (apart from i18n.ts, which holds the rest of the console's). */
import { useI18n, type Locale } from './i18n.js';

const en = {
  threadsTitle: 'Threads',
  threadsLink: 'Conversations (threads)',
  noThreads: 'No threads yet.',
  threadTitle: 'Thread {id}',
  threadRuns: '{count} runs',
  colThread: 'Thread',
  colMessages: 'Runs',
  you: 'User',
  assistant: 'Assistant',
  openRun: 'run {id}',
  stateIdle: 'Idle: a new message starts a run.',
  stateWaiting: 'The assistant asked a question: the next message answers it.',
  stateBusy: 'Busy: a run is running or waits for an approval.',
  kind_input: 'message',
  kind_answer: 'answer',
  kind_decision: 'decision',
  kind_question: 'question',
  kind_approval: 'asks for approval',
  kind_reply: 'reply',
  kind_failure: 'failure',
  inThread: 'thread {id}',
  allThreads: 'All threads',
};

const zh: Record<keyof typeof en, string> = {
  threadsTitle: '会话',
  threadsLink: '会话（线程）',
  noThreads: '还没有会话。',
  threadTitle: '会话 {id}',
  threadRuns: '{count} 次运行',
  colThread: '会话',
  colMessages: '运行',
  you: '用户',
  assistant: '助手',
  openRun: '运行 {id}',
  stateIdle: '空闲：新消息会开始一次运行。',
  stateWaiting: '助手提了问题：下一条消息就是回答。',
  stateBusy: '忙：有运行正在进行或等待审批。',
  kind_input: '消息',
  kind_answer: '回答',
  kind_decision: '决定',
  kind_question: '提问',
  kind_approval: '请求审批',
  kind_reply: '回复',
  kind_failure: '失败',
  inThread: '会话 {id}',
  allThreads: '全部会话',
};

export type ThreadTextKey = keyof typeof en;
const TABLES: Record<Locale, Record<ThreadTextKey, string>> = { en, 'zh-CN': zh };

/** The thread texts of the current language. */
export function useThreadTexts(): (key: ThreadTextKey, params?: Record<string, string | number>) => string {
  const { locale } = useI18n();
  const table = TABLES[locale];
  return (key, params = {}) =>
    table[key].replace(/\{(\w+)\}/g, (whole, name: string) =>
      name in params ? String(params[name]) : whole,
    );
}
