/**
 * The account mails, each in plain text and HTML. Links are absolute (PUBLIC_BASE_URL) and carry
 * their single-use token; everything interpolated into HTML is escaped.
 */
import { linksIn, type MailContent } from './mail.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

function compose(template: string, subject: string, paragraphs: readonly string[], action?: { label: string; url: string }): MailContent {
  const textParts = [...paragraphs];
  if (action !== undefined) textParts.splice(1, 0, `${action.label}: ${action.url}`);
  const text = `${textParts.join('\n\n')}\n\n— qrail\n`;
  const button = action === undefined ? '' : `<p><a href="${esc(action.url)}">${esc(action.label)}</a></p>\n<p style="font-size:small">${esc(action.url)}</p>\n`;
  const [first = '', ...rest] = paragraphs;
  const html = `<!doctype html>\n<html><body>\n<p>${esc(first)}</p>\n${button}${rest.map((p) => `<p>${esc(p)}</p>\n`).join('')}<p>— qrail</p>\n</body></html>\n`;
  return { template, subject, text, html, links: linksIn(text) };
}

export function verifyEmailMail(link: string, ttlHours: number): MailContent {
  return compose(
    'verify_email',
    'Confirm your email address for qrail',
    [
      'Confirm that this address belongs to your qrail account.',
      `The link works once and expires in ${ttlHours} hours. Until the address is confirmed the account can sign in and look, but cannot add funds, hold funds or create machine credentials.`,
      'If you did not create a qrail account, ignore this message.',
    ],
    { label: 'Confirm my email address', url: link },
  );
}

export function passwordResetMail(link: string, ttlMinutes: number): MailContent {
  return compose(
    'password_reset',
    'Reset your qrail password',
    [
      'Someone (hopefully you) asked to reset the password of the qrail account with this address.',
      `The link works once and expires in ${ttlMinutes} minutes. Setting a new password signs out every session.`,
      'It also revokes the account’s machine credentials (API keys) and their access tokens, unless you choose on the page to keep them: the page lists them, so you can tell yours from keys someone else made.',
      'If you did not ask for this, ignore this message: your password stays as it is.',
    ],
    { label: 'Choose a new password', url: link },
  );
}

/** What a reset did to the account's machine credentials: the active ones by name and hint, revoked or kept. */
export interface ResetCredentials {
  readonly kept: boolean;
  readonly credentials: ReadonlyArray<{ readonly name: string; readonly hint: string }>;
}

function credentialsParagraph(c: ResetCredentials): string {
  if (c.credentials.length === 0) return 'The account had no active machine credentials.';
  const list = c.credentials.map((k) => `"${k.name}" (…${k.hint})`).join(', ');
  return c.kept
    ? `Its machine credentials were kept, as asked, and still work: ${list}. Revoke any you do not recognise (POST /v1/auth/credentials/{id}/revoke or the console's keys page).`
    : `Its machine credentials and their access tokens were revoked: ${list}. Create new ones for the programs that should keep running.`;
}

export function passwordChangedMail(how: 'reset' | 'change', at: Date, credentials?: ResetCredentials): MailContent {
  return compose('password_changed', 'Your qrail password was changed', [
    `The password of your qrail account was ${how === 'reset' ? 'reset through an emailed link' : 'changed'} at ${at.toISOString()}.`,
    how === 'reset' ? 'Every session was signed out.' : 'Every other session was signed out.',
    ...(credentials === undefined ? [] : [credentialsParagraph(credentials)]),
    'If this was not you, reset your password at once and review your machine credentials.',
  ]);
}

export function twoFactorMail(change: 'enabled' | 'disabled', at: Date): MailContent {
  return compose(`two_factor_${change}`, `Two-factor sign-in ${change} on your qrail account`, [
    `Two-factor sign-in was ${change} on your qrail account at ${at.toISOString()}.`,
    'If this was not you, reset your password at once.',
  ]);
}

export function accountClosedMail(at: Date, settlement: string): MailContent {
  return compose('account_closed', 'Your qrail account is closed', [`Your qrail account was closed at ${at.toISOString()}.`, settlement, 'Its money history is kept; your personal data is erased.']);
}

export function orgInvitationMail(org: { name: string; inviter: string; role: string }, link: string, ttlDays: number): MailContent {
  return compose(
    'org_invitation',
    `You are invited to ${org.name} on qrail`,
    [
      `${org.inviter} invited you to the organization "${org.name}" on qrail, as ${org.role}.`,
      `The invitation works once and expires in ${ttlDays} days. Accept it signed in with this address (verified); with no qrail account yet, register with this address first.`,
      'If you do not know the organization, ignore this message.',
    ],
    { label: 'Accept the invitation', url: link },
  );
}
