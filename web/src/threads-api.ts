/**
 * The thread endpoints the console reads (docs/threads.md): a thread's conversation and runs, and the
 * list of threads. Kept beside api.ts so the thread view stays in its own files; the shapes are the
 * OpenAPI document's (web/src/api-types.ts).
 */
import { authHeaders, toApiError, type Api, type ApiResponse } from './api.js';

/** `GET /v1/threads/{threadId}`: the thread with its messages and runs. */
export type ThreadView = ApiResponse<'/v1/threads/{threadId}', 'get'>;

/** One message of a thread: what the user or the assistant said, and the run it belongs to. */
export type ThreadMessage = ThreadView['messages'][number];

/** One line of `GET /v1/threads`. */
export type ThreadListItem = ApiResponse<'/v1/threads', 'get'>['threads'][number];

async function get<T>(api: Api, path: string): Promise<T> {
  const response = await fetch(path, { headers: { ...authHeaders(api.token), accept: 'application/json' } });
  if (!response.ok) throw await toApiError(response);
  return (await response.json()) as T;
}

/** The thread with its messages and runs. */
export function fetchThread(api: Api, threadId: string): Promise<ThreadView> {
  return get(api, `/v1/threads/${encodeURIComponent(threadId)}`);
}

/** The tenant's threads, most recently updated first. */
export async function fetchThreads(api: Api): Promise<ThreadListItem[]> {
  return (await get<ApiResponse<'/v1/threads', 'get'>>(api, '/v1/threads?limit=100')).threads;
}
