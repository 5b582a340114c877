/**
 * The readiness report of GET /v1/execute/capabilities (spec §1 rules 1–3): every
 * execution option with `ready` and, when not, each reason. Pure: devices (deployment
 * side) and the account's state in, report out. Payment readiness is reported on its own
 * and never makes a hardware option ready (rule 3): hardware also needs a configured,
 * online device and spend controls that allow hardware.
 */
import { formatMicros } from '../billing/money.js';
import type { Reason, ResolvedDevice } from './device-directory.js';

export interface AccountState {
  readonly accountId: string;
  readonly availableMicros: bigint;
  readonly heldMicros: bigint;
  readonly hardwareAllowed: boolean;
  readonly openHeldJobs: ReadonlyArray<{ job_id: string; device: string; expires_at: Date }>;
}

const NO_SESSION: Reason = { code: 'no_session', message: 'Log in (POST /v1/auth/login) and send Authorization: Bearer <token>.' };
const HW_DISABLED: Reason = {
  code: 'hardware_disabled_by_spend_controls',
  message: 'Hardware spending is off in the spend controls; turn it on with PATCH /v1/billing/spend-controls {"hardware_allowed": true}.',
};

function dedupe(rs: readonly Reason[]): Reason[] {
  const seen = new Set<string>();
  return rs.filter((r) => (seen.has(r.message) ? false : (seen.add(r.message), true)));
}

/** Cheapest possible hardware task on the device: per task + one shot. */
function minimumMicros(d: ResolvedDevice): bigint | null {
  const p = d.profile.pricing;
  return p === null ? null : p.perTaskMicros + p.perShotMicros;
}

function accountReasons(d: ResolvedDevice, a: AccountState | undefined): Reason[] {
  if (a === undefined) return [NO_SESSION];
  const out: Reason[] = [];
  if (!a.hardwareAllowed) out.push(HW_DISABLED);
  const min = minimumMicros(d);
  if (min !== null && a.availableMicros < min) {
    out.push({
      code: 'wallet_not_funded',
      message: `The available balance ${formatMicros(a.availableMicros)} is below the smallest ${d.profile.spec.id} run (${formatMicros(min)}); top up through the processor endpoints.`,
    });
  }
  return out;
}

function option(devices: readonly ResolvedDevice[], endpoint: string, a: AccountState | undefined, hardware: boolean) {
  const perDevice = devices.map((d) => {
    const reasons = dedupe([...d.reasons, ...(hardware ? accountReasons(d, a) : a === undefined ? [NO_SESSION] : [])]);
    return { device: d.profile.spec.id, status: d.status, ready: reasons.length === 0, reasons };
  });
  const ready = perDevice.some((d) => d.ready);
  return {
    ready,
    reasons: ready ? [] : dedupe(perDevice.flatMap((d) => d.reasons)),
    endpoint,
    devices: perDevice,
    ...(hardware ? { requires: ['quote', 'hold'] as const } : {}),
  };
}

export function buildCapabilities(devices: readonly ResolvedDevice[], a: AccountState | undefined, media: unknown) {
  const pick = (provider: string, kind: 'simulator' | 'hardware') => devices.filter((d) => d.profile.spec.provider === provider && d.profile.spec.kind === kind);
  const p2hw = pick('provider-two', 'hardware');
  const hwOption = option(p2hw, 'POST /v1/billing/hardware/quote → POST /v1/billing/hardware/hold → POST /v1/execute/provider-two/held/{job_id}', a, true);
  // Quotes and holds serve both providers' hardware (the same code paths).
  const allHw = devices.filter((d) => d.profile.spec.kind === 'hardware');

  // Held-job continuation: an open held job whose device can run now.
  const heldReasons: Reason[] = [];
  let heldJobs: Array<{ job_id: string; device: string; expires_at: string; ready: boolean; reasons: Reason[] }> = [];
  if (a === undefined) heldReasons.push(NO_SESSION);
  else {
    heldJobs = a.openHeldJobs.map((h) => {
      const d = devices.find((x) => x.profile.spec.id === h.device);
      const reasons = dedupe([...(d?.reasons ?? []), ...(a.hardwareAllowed ? [] : [HW_DISABLED])]);
      return { job_id: h.job_id, device: h.device, expires_at: new Date(h.expires_at).toISOString(), ready: reasons.length === 0, reasons };
    });
    if (heldJobs.length === 0)
      heldReasons.push({ code: 'quote_hold_required', message: 'No held job to continue: get a quote (POST /v1/billing/hardware/quote) and place a hold (POST /v1/billing/hardware/hold) first.' });
    else if (!heldJobs.some((h) => h.ready)) heldReasons.push(...dedupe(heldJobs.flatMap((h) => h.reasons)));
  }

  const quoteReasons: Reason[] = a === undefined ? [NO_SESSION] : [];
  if (!allHw.some((d) => d.profile.pricing !== null)) quoteReasons.push({ code: 'provider_not_configured', message: 'No priced hardware device on this deployment.' });
  // A hold is refused for a device that cannot run now, so it needs at least one that can.
  const holdable = allHw.filter((d) => d.available);
  const holdReasons: Reason[] = [];
  if (a === undefined) holdReasons.push(NO_SESSION);
  else {
    if (!a.hardwareAllowed) holdReasons.push(HW_DISABLED);
    const mins = (holdable.length > 0 ? holdable : allHw).map(minimumMicros).filter((x): x is bigint => x !== null);
    const cheapest = mins.length === 0 ? null : mins.reduce((x, y) => (x < y ? x : y));
    if (cheapest !== null && a.availableMicros < cheapest) {
      holdReasons.push({ code: 'wallet_not_funded', message: `The available balance ${formatMicros(a.availableMicros)} does not cover the cheapest hardware run (${formatMicros(cheapest)}).` });
    }
  }
  if (holdable.length === 0) holdReasons.push(...allHw.flatMap((d) => d.reasons));
  const paymentReasons: Reason[] = a === undefined ? [NO_SESSION] : a.availableMicros > 0n ? [] : [{ code: 'wallet_not_funded', message: 'The wallet has no available balance.' }];

  return {
    session: { authenticated: a !== undefined, account_id: a?.accountId ?? null },
    payment: {
      ready: paymentReasons.length === 0,
      reasons: paymentReasons,
      available: a === undefined ? null : formatMicros(a.availableMicros),
      held: a === undefined ? null : formatMicros(a.heldMicros),
      note: 'Payment readiness does not mean hardware is available: see provider_two.hardware.',
    },
    provider_one: {
      simulator: option(pick('provider-one', 'simulator'), 'POST /v1/execute/provider-one', a, false),
      hardware: option(pick('provider-one', 'hardware'), 'POST /v1/billing/hardware/quote → POST /v1/billing/hardware/hold → POST /v1/execute/provider-one/held/{job_id}', a, true),
    },
    provider_two: {
      simulator: option(pick('provider-two', 'simulator'), 'POST /v1/execute/provider-two', a, false),
      hardware: hwOption,
    },
    held_job_continuation: { ready: heldReasons.length === 0, reasons: dedupe(heldReasons), endpoint: 'POST /v1/execute/{provider}/held/{job_id}', held_jobs: heldJobs },
    hardware_quote: { ready: quoteReasons.length === 0, reasons: quoteReasons, endpoint: 'POST /v1/billing/hardware/quote' },
    hardware_hold: { ready: holdReasons.length === 0, reasons: dedupe(holdReasons), endpoint: 'POST /v1/billing/hardware/hold' },
    media,
  };
}
