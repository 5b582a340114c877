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
  // A new person starts in their personal organization.
  sessionStorage.removeItem('qrail.org');
  if (s === undefined) sessionStorage.removeItem(KEY);
  else sessionStorage.setItem(KEY, JSON.stringify(s));
}

const ORG_KEY = 'qrail.org';

/** The organization the console acts in (sent as Qrail-Org); undefined: the personal one. Per tab, like the session. */
export function loadOrg(): string | undefined {
  try {
    return sessionStorage.getItem(ORG_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export function saveOrg(orgId: string | undefined): void {
  if (orgId === undefined) sessionStorage.removeItem(ORG_KEY);
  else sessionStorage.setItem(ORG_KEY, orgId);
}

const ORG_SWITCH_EVENT = 'qrail:org-switch';

/** Acts in another organization from inside a page (a new organization just created): the app switches as the switcher would. */
export function switchOrg(orgId: string | undefined): void {
  saveOrg(orgId);
  window.dispatchEvent(new Event(ORG_SWITCH_EVENT));
}

/** Calls `f` after `switchOrg`; returns the unsubscribe. */
export function onOrgSwitch(f: () => void): () => void {
  window.addEventListener(ORG_SWITCH_EVENT, f);
  return () => window.removeEventListener(ORG_SWITCH_EVENT, f);
}
