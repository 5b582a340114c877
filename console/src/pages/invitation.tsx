import { useState } from 'preact/hooks';
import { personalApi } from '../api.ts';
import { ErrorBanner } from '../components/error-banner.tsx';
import { saveOrg } from '../session.ts';

/** Where the invitation mail's link leads: accepting it as the signed-in person (the invited, verified address). */
export function InvitationPage({ orgId, invitationId, onJoined }: { orgId: string; invitationId: string; onJoined: (orgId: string) => void }) {
  const [error, setError] = useState<unknown>(undefined);
  const [joined, setJoined] = useState<{ name: string; role: string } | undefined>(undefined);
  const accept = async () => {
    setError(undefined);
    try {
      // Sent without Qrail-Org: the person is not in the organization yet.
      const o = await personalApi().orgs.acceptInvitation(orgId, invitationId);
      setJoined({ name: o.name, role: o.role });
      saveOrg(o.org_id);
      onJoined(o.org_id);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="invitation-title">
      <h1 id="invitation-title">Invitation to an organization</h1>
      {joined === undefined ? (
        <>
          <p>Accepting makes you a member with the role the invitation names. It works once, for the address it was sent to, once that address is verified.</p>
          <button type="button" onClick={() => void accept()}>
            Accept the invitation
          </button>
        </>
      ) : (
        <p class="notice" role="status">
          You joined {joined.name} as {joined.role}; the console now acts in it.
        </p>
      )}
      <ErrorBanner error={error} />
    </section>
  );
}
