import { EXIT, UsageError, type CliContext } from './cli-command.js';
import { QrailApiError } from '../../packages/client/src/index.js';
import { AUTH_ERRORS } from '../auth/error-codes.js';
import { CommandFailure, printJson } from './output.js';
import { remoteCommand, requireSession, type RemoteService } from './remote-session.js';
import type { SavedCredential } from './user-config.js';
import { strOption } from './parse-command-line.js';

/**
 * Account commands: register, login (a session, or a machine credential for the Account Jobs
 * interface), logout, balance, topup, and machine credentials. Secrets are read from stdin or a
 * terminal prompt, never from an argument, except `--credential id:secret`, which scripts need
 * (`--credential-stdin` keeps it out of the process list too).
 */

async function readSecret(ctx: CliContext, fromStdin: boolean, question: string, flag: string): Promise<string> {
  const raw = fromStdin ? await ctx.io.readStdin?.() : await ctx.io.promptSecret?.(question);
  if (raw === undefined) throw new UsageError(`no terminal to ask on: pass it on stdin with ${flag}`);
  const value = raw.replace(/\r?\n$/, '');
  if (value === '') throw new UsageError(`empty input (${flag})`);
  return value;
}

function parseCredential(text: string): SavedCredential {
  const i = text.indexOf(':');
  if (i <= 0 || i === text.length - 1) throw new UsageError('--credential takes <credential_id>:<secret> (as `qrail credentials create` prints it)');
  return { client_id: text.slice(0, i).trim(), client_secret: text.slice(i + 1).trim() };
}

/** The challenge of a login answered `MFA_REQUIRED` (two-factor sign-in on), else undefined. */
function mfaChallenge(e: unknown): string | undefined {
  if (!(e instanceof QrailApiError) || e.code !== AUTH_ERRORS.MFA_REQUIRED.code) return undefined;
  const id = (e.details as Record<string, unknown> | undefined)?.['challenge_id'];
  return typeof id === 'string' ? id : undefined;
}

async function saveSession(svc: RemoteService, email: string, password: string, secondFactor?: () => Promise<string>) {
  let r: Awaited<ReturnType<typeof svc.client.auth.login>>;
  try {
    r = await svc.client.auth.login(email, password);
  } catch (e) {
    const challenge = mfaChallenge(e);
    if (challenge === undefined || secondFactor === undefined) throw e;
    const code = (await secondFactor()).replace(/\s+/g, '');
    // Six digits is a TOTP code; anything else is taken for one of the ten recovery codes.
    r = await svc.client.auth.completeMfaLogin(challenge, /^\d{6}$/.test(code) ? { code } : { recovery_code: code });
  }
  svc.save({ ...svc.entry, session: { token: r.token, email: r.user.email, expires_at: r.absolute_expires_at } });
  return r;
}

/** Checks a machine credential by exchanging it once, then saves it. */
export async function saveCredential(svc: RemoteService, credential: SavedCredential) {
  const token = await svc.client.auth.issueAccessToken({ clientId: credential.client_id, clientSecret: credential.client_secret });
  svc.save({ ...svc.entry, credential: { ...credential, scope: token.scope } });
  return token;
}

export const registerCommand = remoteCommand({
  name: 'register',
  summary: 'create an account and log in (the session is saved in the config file)',
  description: `Registers the email with a password (at least 8 characters), then logs in as \`qrail login\`
does. The password is asked on the terminal, or read from stdin with --password-stdin.`,
  options: {
    email: { type: 'string', value: 'email', required: true, description: 'the account email' },
    'password-stdin': { type: 'boolean', description: 'read the password from stdin (scripts)' },
  },
  examples: ['qrail register --email ada@example.com', 'printf \'%s\' "$PASSWORD" | qrail register --email ada@example.com --password-stdin'],
  async run(input, svc, ctx) {
    const email = strOption(input.options['email']) ?? '';
    const password = await readSecret(ctx, input.options['password-stdin'] === true, 'Choose a password: ', '--password-stdin');
    const user = await svc.client.auth.register(email, password);
    const r = await saveSession(svc, email, password);
    if (svc.json) printJson(ctx.io, { url: svc.url, user, session_expires_at: r.expires_at, config_file: svc.configFile });
    else ctx.io.out(`registered ${user.email} (account ${user.account_id}) on ${svc.url}; logged in, session saved in ${svc.configFile}\n`);
    return EXIT.OK;
  },
});

export const loginCommand = remoteCommand({
  name: 'login',
  summary: 'log in with email and password (session), or save a machine credential (Account Jobs)',
  description: `Either --email: logs in and saves the session token, used by the platform commands
(circuits, run, topup, credentials, balance). Or --credential <id>:<secret>: checks the machine
credential by exchanging it for an access token and saves it; \`qrail jobs …\` and \`qrail balance\`
then exchange it for a short-lived token on each run. Both are kept per service URL in the
config file (mode 0600), and the URL becomes the current one.`,
  options: {
    email: { type: 'string', value: 'email', description: 'log in as this user (password asked, or --password-stdin)' },
    'password-stdin': { type: 'boolean', description: 'read the password from stdin' },
    code: { type: 'string', value: 'code', description: 'two-factor sign-in: the authenticator code (or a recovery code); asked on the terminal when needed' },
    credential: { type: 'string', value: 'id:secret', description: 'a machine credential for the Account Jobs interface' },
    'credential-stdin': { type: 'boolean', description: 'read <id>:<secret> from stdin instead' },
  },
  examples: [
    'qrail login --email ada@example.com',
    'qrail login --credential 0b6f…:qrj_… --url https://qrail.example',
    'qrail credentials create --name ci --json | jq -r \'.credential_id + ":" + .secret\' | qrail login --credential-stdin',
  ],
  async run(input, svc, ctx) {
    const email = strOption(input.options['email']);
    const byCredential = input.options['credential'] !== undefined || input.options['credential-stdin'] === true;
    if ((email === undefined) === !byCredential) throw new UsageError('give either --email or --credential (or --credential-stdin)');
    if (email !== undefined) {
      const password = await readSecret(ctx, input.options['password-stdin'] === true, `Password for ${email}: `, '--password-stdin');
      const given = strOption(input.options['code']);
      const secondFactor = async () => given ?? (await readSecret(ctx, false, 'Two-factor code (or a recovery code): ', '--code'));
      const r = await saveSession(svc, email, password, secondFactor);
      if (svc.json) printJson(ctx.io, { url: svc.url, kind: 'session', email: r.user.email, account_id: r.user.account_id, expires_at: r.expires_at, config_file: svc.configFile });
      else ctx.io.out(`logged in to ${svc.url} as ${r.user.email}; session saved in ${svc.configFile}\n`);
      return EXIT.OK;
    }
    const text = strOption(input.options['credential']) ?? (await readSecret(ctx, true, '', '--credential-stdin'));
    const credential = parseCredential(text);
    const token = await saveCredential(svc, credential);
    if (svc.json) printJson(ctx.io, { url: svc.url, kind: 'credential', client_id: credential.client_id, scope: token.scope, config_file: svc.configFile });
    else ctx.io.out(`machine credential ${credential.client_id} saved for ${svc.url} (scopes ${token.scope}) in ${svc.configFile}\n`);
    return EXIT.OK;
  },
});

export const logoutCommand = remoteCommand({
  name: 'logout',
  summary: 'revoke the saved session and forget the saved login of the service',
  description: `Revokes the session on the service (when there is one) and removes the service's
entry — session and machine credential — from the config file. A machine credential stays valid
on the service: revoke it with \`qrail credentials revoke <id>\`.`,
  examples: ['qrail logout', 'qrail logout --url https://qrail.example'],
  async run(_input, svc, ctx) {
    let revoked = false;
    if (svc.entry.session !== undefined) {
      // An expired or already revoked session is as logged out as it gets.
      revoked = await svc.client.auth.logout().then(
        () => true,
        () => false,
      );
    }
    const had = svc.entry.session !== undefined || svc.entry.credential !== undefined;
    svc.save(undefined);
    if (svc.json) printJson(ctx.io, { url: svc.url, session_revoked: revoked, forgotten: had });
    else ctx.io.out(had ? `logged out of ${svc.url}${revoked ? ' (session revoked)' : ''}\n` : `no saved login for ${svc.url}\n`);
    return EXIT.OK;
  },
});

export const balanceCommand = remoteCommand({
  name: 'balance',
  summary: 'the prepaid balance: available, held (reserved by running jobs) and total, in USD',
  description: `Read through the Account Jobs interface when a machine credential is saved (GET
/v1/account/balance), else through the session (GET /v1/billing/wallet). Both are the same wallet.`,
  examples: ['qrail balance', 'qrail balance --json | jq -r .available'],
  async run(_input, svc, ctx) {
    if (!svc.hasJobsAuth) requireSession(svc);
    const w = svc.hasJobsAuth ? await svc.client.jobs.balance() : await svc.client.billing.wallet();
    if (svc.json) printJson(ctx.io, w);
    else ctx.io.out(`available ${w.available} USD, held ${w.held} USD, total ${w.total} USD (as of ${w.as_of})\n`);
    return EXIT.OK;
  },
});

export const topupCommand = remoteCommand({
  name: 'topup',
  summary: 'add money to the wallet with a card (the sandbox processor: a test card, no real money)',
  description: `Creates a payment intent for the amount (USD, two decimals, at least 0.50) charged to
the card; a successful payment is credited at once. With the embedded default processor (the
sandbox) the test card pm_card_visa always succeeds and pm_card_chargeDeclined is declined; with
Stripe, --card is one of your saved payment methods.`,
  positionals: [{ name: 'amount', description: 'USD, e.g. 20 or 12.50' }],
  options: { card: { type: 'string', value: 'payment-method', description: 'the payment method id (default: pm_card_visa)' } },
  examples: ['qrail topup 20', 'qrail topup 5.50 --card pm_card_mastercard --json'],
  async run(input, svc, ctx) {
    requireSession(svc);
    const amount = input.positionals[0] ?? '';
    const pi = await svc.client.billing.paymentIntent({ amount, payment_method: strOption(input.options['card']) ?? 'pm_card_visa' });
    if (svc.json) printJson(ctx.io, pi);
    if (pi.failure_code !== null)
      throw new CommandFailure({ code: 'PAYMENT_FAILED', message: `payment ${pi.payment_intent_id} failed: ${pi.failure_code}${pi.failure_message ? ` (${pi.failure_message})` : ''}` });
    if (!svc.json) {
      ctx.io.out(
        pi.credited
          ? `credited ${pi.amount} USD (payment ${pi.payment_intent_id}); available now ${pi.wallet.available} USD\n`
          : `payment ${pi.payment_intent_id} is ${pi.status}; it is credited when the processor confirms it\n`,
      );
    }
    return EXIT.OK;
  },
});
