/**
 * The signed-in person: the token (kept in sessionStorage, so it ends with the tab) and who the API
 * says it is (`GET /v1/me`). A server that does not have `/v1/me` yet is treated as viewer (actions hidden).
 */
import { createContext, useContext } from 'react';
import { Api, ApiError, hasRole, type Me, type Role } from './api.js';

const KEY = 'g2rain.token';

/** The token saved in this tab, if any. */
export function savedToken(): string | null {
  return sessionStorage.getItem(KEY);
}

/** Saves (or, with null, forgets) the token of this tab. */
export function saveToken(token: string | null): void {
  if (token === null) sessionStorage.removeItem(KEY);
  else sessionStorage.setItem(KEY, token);
}

/** A signed-in session. `roleKnown` is false when the server could not tell the role. */
export interface Session {
  api: Api;
  me: Me;
  roleKnown: boolean;
  /** True when the person may approve, answer and cancel. */
  canAct: boolean;
  signOut: () => void;
}

/**
 * Who `token` is (null: a server without auth, where every caller is admin). Throws ApiError 401 for
 * an unknown token. Without `/v1/me` (404), a request that any role may make checks the token and
 * the role stays unknown: the console shows the run but no action.
 */
export async function whoAmI(token: string | null): Promise<{ me: Me; roleKnown: boolean }> {
  const api = new Api(token);
  try {
    return { me: await api.me(), roleKnown: true };
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
    await api.runs(undefined, 1);
    return { me: { name: '?', role: 'viewer', tenant: null }, roleKnown: false };
  }
}

/** Builds the session object for a verified token. */
export function sessionOf(token: string | null, me: Me, roleKnown: boolean, signOut: () => void): Session {
  const role: Role = roleKnown ? me.role : 'viewer';
  return { api: new Api(token), me, roleKnown, canAct: roleKnown && hasRole(role, 'operator'), signOut };
}

export const SessionContext = createContext<Session | null>(null);

/** The session (the console renders pages only once signed in). */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in console');
  return session;
}
