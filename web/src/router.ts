/**
 * A tiny history router: `/` (inbox and run list, `?status=` filter), `/threads`, `/threads/{id}`, `/runs/{id}` and
 * `/runs/{id}/evidence/{evidenceId}` (`?value=` the JSON of a value to highlight in the payload, `?marks=`
 * the JSON of the recorded places `[{path, span?}]` where it was found). The server
 * answers every client route with index.html (src/server/console.ts), so links can be shared.
 */
import { useEffect, useState } from 'react';

/** A parsed location. */
export type Route =
  | { page: 'runs'; status: string | null }
  | { page: 'run'; runId: string }
  | { page: 'evidence'; runId: string; evidenceId: string; value: string | null; marks?: string | null }
  | { page: 'threads' }
  | { page: 'thread'; threadId: string };

/** Parses a path and query into a route (unknown paths show the run list). */
export function parseRoute(pathname: string, search: string): Route {
  const evidence = /^\/runs\/([^/]+)\/evidence\/([^/]+)\/?$/.exec(pathname);
  if (evidence) {
    return {
      page: 'evidence',
      runId: decodeURIComponent(evidence[1] as string),
      evidenceId: decodeURIComponent(evidence[2] as string),
      value: new URLSearchParams(search).get('value'),
      marks: new URLSearchParams(search).get('marks'),
    };
  }
  const thread = /^\/threads\/([^/]+)\/?$/.exec(pathname);
  if (thread) return { page: 'thread', threadId: decodeURIComponent(thread[1] as string) };
  if (/^\/threads\/?$/.test(pathname)) return { page: 'threads' };
  const match = /^\/runs\/([^/]+)\/?$/.exec(pathname);
  if (match) return { page: 'run', runId: decodeURIComponent(match[1] as string) };
  return { page: 'runs', status: new URLSearchParams(search).get('status') };
}

/** The href of a route. */
export function hrefOf(route: Route): string {
  if (route.page === 'run') return `/runs/${encodeURIComponent(route.runId)}`;
  if (route.page === 'threads') return '/threads';
  if (route.page === 'thread') return `/threads/${encodeURIComponent(route.threadId)}`;
  if (route.page === 'evidence') {
    const base = `/runs/${encodeURIComponent(route.runId)}/evidence/${encodeURIComponent(route.evidenceId)}`;
    const query: string[] = [];
    if (route.value !== null) query.push(`value=${encodeURIComponent(route.value)}`);
    if (route.marks) query.push(`marks=${encodeURIComponent(route.marks)}`);
    return query.length === 0 ? base : `${base}?${query.join('&')}`;
  }
  return route.status ? `/?status=${encodeURIComponent(route.status)}` : '/';
}

const listeners = new Set<() => void>();

/** Goes to `href` without reloading the page. */
export function navigate(href: string): void {
  window.history.pushState(null, '', href);
  for (const listener of listeners) listener();
}

/** The current route, updated on navigation and on the browser's back/forward. */
export function useRoute(): Route {
  const read = (): Route => parseRoute(window.location.pathname, window.location.search);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const update = (): void => setRoute(read());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return route;
}
