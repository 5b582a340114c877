/**
 * The signed-in person's session token. Kept in sessionStorage: it survives a reload of the tab
 * but not the browser, and no other tab or site can read it (the console is same-origin only).
 */
const KEY = 'qrail.session';

export interface StoredSession {
  readonly token: string;
  readonly email: string;
}

export function loadSession(): StoredSession | undefined {
  try {
    const raw = sessionStorage.getItem(KEY);
    if (raw === null) return undefined;
    const v = JSON.parse(raw) as Partial<StoredSession>;
    return typeof v.token === 'string' && typeof v.email === 'string' ? { token: v.token, email: v.email } : undefined;
  } catch {
    return undefined;
  }
}

export function saveSession(s: StoredSession | undefined): void {
  if (s === undefined) sessionStorage.removeItem(KEY);
  else sessionStorage.setItem(KEY, JSON.stringify(s));
}
