import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorBanner } from '../components/error-banner.tsx';
import { usd, when } from '../format.ts';
import { loadOrg, switchOrg } from '../session.ts';
import { useLoad } from '../use-load.ts';
import { AuditLog } from './org-audit.tsx';

const ROLES = ['owner', 'admin', 'developer', 'billing', 'viewer'] as const;
type Role = (typeof ROLES)[number];

/** A member's own limits, once the service reports them (`spend_limits`, issue #39's budgets); absent before. */
interface Limits {
  readonly daily_usd: string | null;
  readonly monthly_usd: string | null;
}
const limitsOf = (m: object): Limits | undefined => ('spend_limits' in m ? (m.spend_limits as Limits) : undefined);
const limitText = (v: string | null | undefined) => (v === undefined ? '—' : v === null ? 'none' : usd(v));

function Members({ orgId, manage, isOwner, onChanged }: { orgId: string; manage: boolean; isOwner: boolean; onChanged: () => void }) {
  const members = useLoad((signal) => api().orgs.members(orgId, { signal }), [orgId]);
  const [error, setError] = useState<unknown>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const [daily, setDaily] = useState('');
  const [monthly, setMonthly] = useState('');
  const startEdit = (userId: string, limits: Limits | undefined) => {
    setEditing(userId);
    setDaily(limits?.daily_usd ?? '');
    setMonthly(limits?.monthly_usd ?? '');
  };
  // An empty field clears that limit (null), as the API takes it.
  const saveLimits = async (e: Event, userId: string, email: string) => {
    e.preventDefault();
    setError(undefined);
    try {
      const r = await api().orgs.setSpendLimits(orgId, userId, { daily_usd: daily.trim() === '' ? null : daily.trim(), monthly_usd: monthly.trim() === '' ? null : monthly.trim() });
      setNotice(`Limits of ${email}: daily ${limitText(r.member.spend_limits.daily_usd)}, monthly ${limitText(r.member.spend_limits.monthly_usd)}.`);
      setEditing(undefined);
      members.reload();
      onChanged();
    } catch (err) {
      setError(err);
    }
  };
  const remove = async (userId: string, email: string) => {
    // Removal ends their access at once and revokes the credentials they created here.
    if (!window.confirm(`Remove ${email} from this organization? Their access ends now and the credentials they created here are revoked.`)) return;
    setError(undefined);
    try {
      const r = await api().orgs.removeMember(orgId, userId);
      setNotice(`${email} was removed${r.credentials_revoked > 0 ? `; ${r.credentials_revoked} of their credentials were revoked` : ''}.`);
      members.reload();
      onChanged();
    } catch (err) {
      setError(err);
      members.reload();
    }
  };
  const change = async (userId: string, email: string, role: Role) => {
    setError(undefined);
    try {
      const r = await api().orgs.changeRole(orgId, userId, role);
      setNotice(`${email} is now ${r.member.role}${r.credentials_cut > 0 ? `; ${r.credentials_cut} of their credentials lost scopes the role lacks` : ''}.`);
      members.reload();
      onChanged();
    } catch (err) {
      setError(err);
      members.reload();
    }
  };
  return (
    <>
      <h2 id="members-title">Members</h2>
      <ErrorBanner error={members.error ?? error} />
      {notice !== undefined && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <div class="table-wrap">
        <table aria-labelledby="members-title">
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Daily limit</th>
              <th scope="col">Monthly limit</th>
              <th scope="col">Joined</th>
              {manage && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {(members.data ?? []).map((m) => {
              const limits = limitsOf(m);
              // Only an owner makes, changes or removes an owner (the service says so too).
              const editable = manage && (isOwner || m.role !== 'owner');
              return (
                <tr key={m.user_id}>
                  <td>{m.email}</td>
                  <td>
                    {editable ? (
                      <select aria-label={`Role of ${m.email}`} value={m.role} onChange={(e) => void change(m.user_id, m.email, e.currentTarget.value as Role)}>
                        {ROLES.filter((r) => isOwner || r !== 'owner').map((r) => (
                          <option key={r} value={r}>
                            {r}
                          </option>
                        ))}
                      </select>
                    ) : (
                      m.role
                    )}
                  </td>
                  <td class="num">{limitText(limits?.daily_usd)}</td>
                  <td class="num">{limitText(limits?.monthly_usd)}</td>
                  <td>{when(m.joined_at)}</td>
                  {manage && (
                    <td>
                      {editable && editing !== m.user_id && (
                        <>
                          <button type="button" class="link-button" onClick={() => startEdit(m.user_id, limits)}>
                            Edit limits of {m.email}
                          </button>{' '}
                          <button type="button" class="link-button" onClick={() => void remove(m.user_id, m.email)}>
                            Remove {m.email}
                          </button>
                        </>
                      )}
                      {editing === m.user_id && (
                        <form class="inline-form" aria-label={`Limits of ${m.email}`} onSubmit={(e) => void saveLimits(e, m.user_id, m.email)}>
                          <label>
                            Daily limit (USD, empty: none)
                            <input inputMode="decimal" pattern="^\d{1,9}(\.\d{1,6})?$" value={daily} onInput={(e) => setDaily(e.currentTarget.value)} />
                          </label>
                          <label>
                            Monthly limit (USD, empty: none)
                            <input inputMode="decimal" pattern="^\d{1,9}(\.\d{1,6})?$" value={monthly} onInput={(e) => setMonthly(e.currentTarget.value)} />
                          </label>
                          <button type="submit">Save limits</button>{' '}
                          <button type="button" class="link-button" onClick={() => setEditing(undefined)}>
                            Cancel
                          </button>
                        </form>
                      )}
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}

function Invitations({ orgId, manage, onChanged }: { orgId: string; manage: boolean; onChanged: () => void }) {
  const list = useLoad((signal) => api().orgs.invitations(orgId, { signal }), [orgId]);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const invite = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await api().orgs.invite(orgId, { email, role });
      setEmail('');
      list.reload();
      onChanged();
    } catch (err) {
      setError(err);
    }
    setBusy(false);
  };
  const pending = (list.data ?? []).filter((i) => i.status === 'pending');
  return (
    <>
      <h2 id="invitations-title">Invitations</h2>
      {manage && (
        <form class="inline-form" onSubmit={(e) => void invite(e)} aria-label="Invite a person">
          <label>
            Email to invite
            <input name="email" type="email" required maxLength={254} value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          </label>
          <label>
            Role
            <select name="role" aria-label="Role to give" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={busy}>
            {busy ? 'Sending…' : 'Send invitation'}
          </button>
        </form>
      )}
      <ErrorBanner error={list.error ?? error} />
      <div class="table-wrap">
        <table aria-labelledby="invitations-title">
          <caption>Pending invitations (single use, 7 days)</caption>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Sent</th>
              <th scope="col">Expires</th>
            </tr>
          </thead>
          <tbody>
            {pending.map((i) => (
              <tr key={i.invitation_id}>
                <td>{i.email}</td>
                <td>{i.role}</td>
                <td>{when(i.created_at)}</td>
                <td>{when(i.expires_at)}</td>
              </tr>
            ))}
            {list.data !== undefined && pending.length === 0 && (
              <tr>
                <td colSpan={4}>No pending invitations.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** A new team organization, owned by the caller; the console then acts in it. */
function CreateOrg() {
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const create = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const org = await api().orgs.create(name.trim());
      switchOrg(org.org_id);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <>
      <h2 id="create-org-title">Create an organization</h2>
      <form class="inline-form" aria-labelledby="create-org-title" onSubmit={(e) => void create(e)}>
        <label>
          Organization name
          <input name="name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create organization'}
        </button>
      </form>
      <ErrorBanner error={error} />
    </>
  );
}

/** The organization the console acts in: its members and their roles and limits, invitations, and the audit log. */
export function OrgPage() {
  const orgs = useLoad((signal) => api().orgs.list({ signal }), []);
  const chosen = loadOrg();
  const org = orgs.data?.find((o) => (chosen === undefined ? o.personal : o.org_id === chosen));
  const manage = org?.role === 'owner' || org?.role === 'admin';
  // A change made on this page is in the audit log at once: the log reloads after it.
  const [changes, setChanges] = useState(0);
  const changed = () => setChanges((n) => n + 1);
  return (
    <section aria-labelledby="org-title">
      <h1 id="org-title">{org === undefined ? 'Organization' : `Organization: ${org.name}`}</h1>
      <ErrorBanner error={orgs.error} />
      {org !== undefined && (
        <>
          <p>
            Your role here: <strong data-testid="my-role">{org.role}</strong>.{' '}
            {org.personal
              ? 'This is your personal organization: it has no other members. Create a team organization to share a wallet.'
              : 'Members share this organization’s wallet, jobs and credentials.'}
          </p>
          <Members orgId={org.org_id} manage={manage && !org.personal} isOwner={org.role === 'owner'} onChanged={changed} />
          {!org.personal && <Invitations orgId={org.org_id} manage={manage} onChanged={changed} />}
          {(org.role === 'owner' || org.role === 'admin' || org.role === 'billing') && <AuditLog orgId={org.org_id} refresh={changes} />}
        </>
      )}
      {orgs.data !== undefined && <CreateOrg />}
    </section>
  );
}
