import { useEffect, useState } from 'preact/hooks';
import { api, onSessionExpired } from './api.ts';
import { href, navigate, onLinkClick, usePath } from './router.ts';
import { loadOrg, loadSession, onOrgSwitch, saveOrg, saveSession, type StoredSession } from './session.ts';
import { OrgSwitcher } from './components/org-switcher.tsx';
import { OrgPage } from './pages/org.tsx';
import { InvitationPage } from './pages/invitation.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { WalletPage } from './pages/wallet.tsx';
import { KeysPage } from './pages/keys.tsx';
import { JobsPage } from './pages/jobs.tsx';
import { JobPage } from './pages/job.tsx';
import { CircuitsPage } from './pages/circuits.tsx';
import { DevicesPage } from './pages/devices.tsx';

const NAV = [
  ['/wallet', 'Wallet'],
  ['/jobs', 'Jobs'],
  ['/circuits', 'Circuits'],
  ['/devices', 'Devices'],
  ['/keys', 'API keys'],
  ['/org', 'Organization'],
] as const;

function Page({ path, onJoined }: { path: string; onJoined: (orgId: string) => void }) {
  const p = path.split('?')[0] ?? '/';
  if (p === '/' || p === '/wallet') return <WalletPage />;
  if (p === '/keys') return <KeysPage />;
  if (p === '/jobs') return <JobsPage />;
  const job = /^\/jobs\/(account|execution)\/([^/]+)$/.exec(p);
  if (job !== null) return <JobPage kind={job[1] as 'account' | 'execution'} id={decodeURIComponent(job[2]!)} />;
  if (p === '/circuits') return <CircuitsPage />;
  if (p === '/devices') return <DevicesPage />;
  if (p === '/org') return <OrgPage />;
  const invitation = /^\/orgs\/([0-9a-f-]{36})\/invitations\/([0-9a-f-]{36})$/.exec(p);
  if (invitation !== null) return <InvitationPage orgId={invitation[1]!} invitationId={invitation[2]!} onJoined={onJoined} />;
  return (
    <section>
      <h1>Not found</h1>
      <p>
        There is no page at <code>{p}</code>. <a href={href('/wallet')}>Go to the wallet</a>.
      </p>
    </section>
  );
}

export function App() {
  const path = usePath();
  const [session, setSession] = useState<StoredSession | undefined>(loadSession());
  const [expired, setExpired] = useState(false);
  const [org, setOrg] = useState<string | undefined>(loadOrg());
  useEffect(() => onOrgSwitch(() => setOrg(loadOrg())), []);

  useEffect(
    () =>
      onSessionExpired(() => {
        saveSession(undefined);
        setSession(undefined);
        setExpired(true);
      }),
    [],
  );

  const signedIn = (s: StoredSession, next: string | undefined) => {
    saveSession(s);
    setSession(s);
    setExpired(false);
    navigate(next !== undefined && next.startsWith('/') && !next.startsWith('//') ? next : '/wallet', true);
  };

  const signOut = async () => {
    await api()
      .auth.logout()
      .catch(() => undefined);
    saveSession(undefined);
    setSession(undefined);
    navigate('/', true);
  };

  if (session === undefined) return <SignIn expired={expired} next={path === '/' ? undefined : path} onSignedIn={signedIn} />;

  const active = path.split('?')[0] ?? '/';
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={href('/wallet')} onClick={(e) => onLinkClick(e, '/wallet')}>
          qrail
        </a>
        <nav aria-label="Main">
          <ul>
            {NAV.map(([to, label]) => (
              <li key={to}>
                <a href={href(to)} aria-current={active === to || active.startsWith(`${to}/`) || (to === '/wallet' && active === '/') ? 'page' : undefined} onClick={(e) => onLinkClick(e, to)}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <OrgSwitcher
            key={`${session.token} ${org ?? ''}`}
            onSwitch={(id) => {
              saveOrg(id);
              setOrg(id);
            }}
          />
          <span>{session.email}</span>
          <button type="button" class="link-button" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {/* A switch of organization mounts the page afresh: its data is loaded again, in the new one. */}
        <Page
          key={org ?? 'personal'}
          path={path}
          onJoined={(id) => {
            setOrg(id);
            navigate('/org');
          }}
        />
      </main>
    </div>
  );
}
