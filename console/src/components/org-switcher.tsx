import { api } from '../api.ts';
import { loadOrg } from '../session.ts';
import { useLoad } from '../use-load.ts';

/**
 * The organization the console acts in. Choosing one saves it for the tab; the app then rebuilds
 * the client (every API call sends `Qrail-Org`) and reloads the page's data.
 */
export function OrgSwitcher({ onSwitch }: { onSwitch: (orgId: string | undefined) => void }) {
  const orgs = useLoad((signal) => api().orgs.list({ signal }), []);
  const list = orgs.data ?? [];
  if (list.length < 2) return null;
  const current = loadOrg() ?? list.find((o) => o.personal)?.org_id;
  return (
    <label class="org-switch">
      Organization
      <select
        aria-label="Organization"
        value={current}
        onChange={(e) => {
          const chosen = list.find((o) => o.org_id === e.currentTarget.value);
          onSwitch(chosen === undefined || chosen.personal ? undefined : chosen.org_id);
        }}
      >
        {list.map((o) => (
          <option key={o.org_id} value={o.org_id}>
            {o.personal ? `${o.name} (personal)` : o.name} — {o.role}
          </option>
        ))}
      </select>
    </label>
  );
}
