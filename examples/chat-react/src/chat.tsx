import { useChat } from '@ai-sdk/react';
import {
  DefaultChatTransport,
  isTextUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type DynamicToolUIPart,
  type UIMessage,
} from 'ai';
import { useMemo, useState, type FormEvent } from 'react';

/** What the runtime puts on each tool part: the guards' outcome, the reason and next step the model read. */
interface ToolOutcome {
  outcome?: string;
  errorCode?: string | null;
  message?: string | null;
  evidenceId?: string | null;
}

const params = new URLSearchParams(window.location.search);

/**
 * A chat with one flow of an `agent-runtime serve`, through the AI SDK's `useChat`: the thread is
 * `/v1/threads/{threadId}/chat`, the flow goes in the transport's `body`, and a gated write shows an
 * approval request answered with `addToolApprovalResponse` (sent back at once).
 */
export function ChatPage() {
  const [threadId] = useState(() => params.get('thread') ?? `web-${crypto.randomUUID().slice(0, 8)}`);
  const [token, setToken] = useState(params.get('token') ?? '');
  const flowId = params.get('flow') ?? 'helpdesk';
  const transport = useMemo(
    () =>
      new DefaultChatTransport<UIMessage>({
        api: `/v1/threads/${encodeURIComponent(threadId)}/chat`,
        headers: (): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {}),
        body: { flowId },
      }),
    [threadId, token, flowId],
  );
  const { messages, sendMessage, addToolApprovalResponse, status, error, clearError } = useChat({
    id: threadId,
    transport,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState('');
  // After an error (a wrong token, the server away) the chat is usable again: only a request under
  // way disables the form, and the next message clears the error.
  const busy = status === 'submitted' || status === 'streaming';
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (!input.trim() || busy) return;
    if (error) clearError();
    void sendMessage({ text: input });
    setInput('');
  };
  return (
    <main style={{ maxWidth: 720, margin: '2rem auto', fontFamily: 'system-ui, sans-serif' }}>
      <h1>
        Flow <code>{flowId}</code>, thread <code data-testid="thread">{threadId}</code>
      </h1>
      <label>
        API token (operator){' '}
        <input type="password" value={token} onChange={(e) => setToken(e.target.value)} />
      </label>
      <ol data-testid="messages" style={{ listStyle: 'none', padding: 0 }}>
        {messages.map((m) => (
          <li key={m.id} data-role={m.role} style={{ margin: '1rem 0' }}>
            <strong>{m.role === 'user' ? 'You' : 'Assistant'}</strong>
            {m.parts.map((part, i) =>
              isTextUIPart(part) ? (
                <p key={i}>{part.text}</p>
              ) : part.type === 'dynamic-tool' ? (
                <ToolPart key={i} part={part} onDecide={addToolApprovalResponse} />
              ) : null,
            )}
          </li>
        ))}
      </ol>
      {error && <p role="alert">Error: {error.message}</p>}
      <form onSubmit={submit}>
        <label>
          Message <input value={input} onChange={(e) => setInput(e.target.value)} disabled={busy} />
        </label>{' '}
        <button type="submit" disabled={busy}>
          Send
        </button>
      </form>
    </main>
  );
}

/** A tool call: its name and input, our outcome and next step, and the approval buttons when it waits. */
function ToolPart({
  part,
  onDecide,
}: {
  part: DynamicToolUIPart;
  onDecide: (response: { id: string; approved: boolean }) => void | PromiseLike<void>;
}) {
  const meta = (part as { toolMetadata?: ToolOutcome }).toolMetadata ?? {};
  return (
    <div data-testid="tool" data-state={part.state} style={{ border: '1px solid #ccc', padding: 8 }}>
      <code>{part.toolName}</code> <code>{JSON.stringify(part.input)}</code>
      {meta.outcome && (
        <p>
          <strong>{meta.outcome}</strong>
          {meta.errorCode ? ` ${meta.errorCode}` : ''}
          {meta.message ? ` — ${meta.message}` : ''}
        </p>
      )}
      {part.state === 'approval-requested' && (
        <p>
          Approve this exact call?{' '}
          <button type="button" onClick={() => void onDecide({ id: part.approval.id, approved: true })}>
            Approve
          </button>{' '}
          <button type="button" onClick={() => void onDecide({ id: part.approval.id, approved: false })}>
            Reject
          </button>
        </p>
      )}
      {part.state === 'output-denied' && <p>Rejected.</p>}
    </div>
  );
}
