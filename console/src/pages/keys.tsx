import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorBanner } from '../components/error-banner.tsx';
import { when } from '../format.ts';
import { useLoad } from '../use-load.ts';

type Scope = 'jobs:read' | 'jobs:write' | 'circuits:run' | 'execute:simulator' | 'execute:hardware' | 'billing:read';
interface Credential {
  readonly credential_id: string;
  readonly name: string;
  readonly status: string;
}

// The scopes a credential can hold (docs/security.md#credentials-and-scopes); changing spend controls and top-ups stay with you.
const SCOPES: readonly [Scope, string][] = [
  ['jobs:read', 'List and read jobs, receipts and the balance.'],
  ['jobs:write', 'Submit paid jobs, spending from this account within its spend controls.'],
  ['circuits:run', 'Analyze and optimize circuits and their coupling, without the anonymous limits.'],
  ['execute:simulator', 'Run circuits on simulators, read and cancel those runs.'],
  ['execute:hardware', 'Quote, hold, run, cancel and release hardware runs, spending within the spend controls.'],
  ['billing:read', 'Read the wallet, ledger, holds and spend controls (never change them).'],
];

function NewSecret({ secret, id, onClose }: { secret: string; id: string; onClose: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(secret).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <div class="secret" role="region" aria-label="New credential secret">
      <p>
        <strong>Copy this secret now: it is shown only once.</strong> Use it as a bearer token on the Jobs API, or as the client secret (client id <code>{id}</code>) at
        <code> POST /v1/oauth/token</code>.
      </p>
      <code class="secret-value" data-testid="secret">
        {secret}
      </code>
      <button type="button" onClick={() => void copy()}>
        {copied ? 'Copied' : 'Copy'}
      </button>
      <button type="button" class="link-button" onClick={onClose}>
        Done
      </button>
    </div>
  );
}

export function KeysPage() {
  const list = useLoad((signal) => api().auth.listCredentials({ signal }), []);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['jobs:read', 'jobs:write']);
  const [created, setCreated] = useState<{ secret: string; id: string } | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const create = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    try {
      const c = await api().auth.createCredential({ name, scopes });
      setCreated({ secret: c.secret, id: c.credential_id });
      setName('');
      list.reload();
    } catch (err) {
      setError(err);
    }
  };
  const revoke = async (c: Credential) => {
    if (!confirm(`Revoke "${c.name}"? Agents using it stop working at once.`)) return;
    try {
      await api().auth.revokeCredential(c.credential_id);
      list.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <p>
        Machine credentials let agents and scripts use this account through the Jobs API and, within their scopes, the platform API (circuits, runs, billing views). Each one can be revoked on its own.
      </p>
      {created !== undefined && <NewSecret secret={created.secret} id={created.id} onClose={() => setCreated(undefined)} />}
      <form class="settings" onSubmit={(e) => void create(e)} aria-label="Create a credential">
        <label>
          Name
          <input name="name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="e.g. nightly-agent" />
        </label>
        <fieldset>
          <legend>Scopes</legend>
          {SCOPES.map(([s, what]) => (
            <label key={s} class="check">
              <input type="checkbox" checked={scopes.includes(s)} onChange={(e) => setScopes(e.currentTarget.checked ? [...scopes, s] : scopes.filter((x) => x !== s))} />
              <code>{s}</code> — {what}
            </label>
          ))}
        </fieldset>
        <ErrorBanner error={error} />
        <button type="submit">Create credential</button>
      </form>
      <h2>Credentials</h2>
      <ErrorBanner error={list.error} />
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Scopes</th>
              <th scope="col">Secret ends</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(list.data?.credentials ?? []).map((c) => (
              <tr key={c.credential_id}>
                <td>{c.name}</td>
                <td>{c.scopes.join(' ')}</td>
                <td>
                  <code>…{c.secret_hint}</code>
                </td>
                <td>{when(c.created_at)}</td>
                <td>{when(c.last_used_at)}</td>
                <td>{c.status}</td>
                <td>
                  {c.status === 'active' && (
                    <button type="button" class="danger" onClick={() => void revoke(c)} aria-label={`Revoke ${c.name}`}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
            {list.data !== undefined && list.data.credentials.length === 0 && (
              <tr>
                <td colSpan={7}>No credentials yet.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
