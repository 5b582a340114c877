import { Type } from 'typebox';
import { AppError } from '../../../errors/app-error.js';
import { decodeCursor, encodeCursor } from '../../../kernel/list-cursor.js';
import type { App } from '../../app-types.js';
import { errors, htmlPage, okResponse } from '../../envelope-schemas.js';
import { escapeHtml, sendPage } from '../../html-page.js';
import { operatorGuard, operatorRateLimit } from '../../plugins/operator-guard.js';
import { Obj } from '../../schema-helpers.js';

const esc = escapeHtml;

const OutboxItem = Obj({
  id: Type.String({ format: 'uuid' }),
  to: Type.String(),
  template: Type.String(),
  subject: Type.String(),
  status: Type.Union(['pending', 'sending', 'sent', 'failed'].map((s) => Type.Literal(s))),
  attempts: Type.Integer({ minimum: 0 }),
  created_at: Type.String({ format: 'date-time' }),
  sent_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  transport: Type.Union([Type.String(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  text: Type.String({ description: 'Plain-text body; empty once sent over SMTP (it held single-use links)' }),
  html: Type.String(),
});

/**
 * The pages the mailed links open (email confirmation, new password) and the operator's view of
 * the mail outbox (the development outbox when SMTP_URL is unset).
 */
export default async function mailRoutes(app: App): Promise<void> {
  const tags = ['auth'];
  const raw = { surface: 'page' as const };

  app.get(
    '/v1/auth/email/verify',
    {
      config: raw,
      schema: {
        tags,
        operationId: 'getEmailVerifyPage',
        summary: 'The page of the mailed verification link: confirms the email (single use)',
        querystring: Obj({ token: Type.String({ maxLength: 100 }) }),
        response: { 200: htmlPage('The email is confirmed'), 400: htmlPage('The link is unknown, used or expired') },
      },
    },
    async (req, reply) => {
      try {
        await app.services.accounts.verifyEmail(req.query.token);
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        return sendPage(reply, 400, 'Link not usable', `<p>${esc(e.message)}</p>`);
      }
      return sendPage(reply, 200, 'Email confirmed', '<p>Your email is confirmed: the account can now add funds and create machine credentials.</p>');
    },
  );

  app.get(
    '/v1/auth/password/reset',
    {
      config: raw,
      schema: {
        tags,
        operationId: 'getPasswordResetPage',
        summary: 'The page of the mailed reset link: a form that posts the new password to POST /v1/auth/password/reset',
        querystring: Obj({ token: Type.String({ maxLength: 100 }) }),
        response: { 200: htmlPage('The new-password form, listing the machine credentials a reset revokes'), 400: htmlPage('The link is unknown, used or expired') },
      },
    },
    async (req, reply) => {
      const credentials = await app.services.accounts.resetLinkCredentials(req.query.token);
      if (credentials === null) {
        return sendPage(reply, 400, 'Link not usable', '<p>This reset link is unknown, already used or expired; ask for a new one.</p>');
      }
      const token = JSON.stringify(req.query.token).replace(/</g, '\\u003c');
      // The owner recovering a taken-over account sees every key in force and, by default, revokes them all (issue #34).
      const list =
        credentials.length === 0
          ? '<p>The account has no active machine credentials.</p>'
          : `<p>Setting a new password also revokes these machine credentials (API keys) and their access tokens:</p><ul>${credentials
              .map(
                (c) =>
                  `<li><b>${esc(c.name)}</b> (…${esc(c.hint)}; ${esc(c.scopes.join(' ') || 'no scope')}; created ${esc(c.createdAt.toISOString().slice(0, 10))}${c.lastUsedAt === null ? ', never used' : `, last used ${esc(c.lastUsedAt.toISOString().slice(0, 10))}`})</li>`,
              )
              .join('')}</ul>
<p><label><input id="k" type="checkbox"> Keep them working (only if you made every one of them)</label></p>`;
      const body = `<form id="f"><label>New password <input id="p" type="password" minlength="8" maxlength="128" required autocomplete="new-password"></label>
${list}<p><button type="submit">Set password</button></p></form><p id="r" role="status"></p>`;
      const script = `document.getElementById('f').addEventListener('submit',async(e)=>{e.preventDefault();const k=document.getElementById('k');
const r=await fetch('/v1/auth/password/reset',{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({token:${token},password:document.getElementById('p').value,keep_credentials:k!==null&&k.checked})});
const j=await r.json();document.getElementById('r').textContent=r.ok?'Password set; every session was signed out'+(j.data.credentials_revoked>0?' and '+j.data.credentials_revoked+' machine credential(s) revoked':'')+'. Log in with the new password.':j.error.message;});`;
      return sendPage(reply, 200, 'Choose a new password', body, { script });
    },
  );

  app.get(
    '/v1/auth/operator/mail-outbox',
    {
      onRequest: operatorGuard(app),
      config: { rateLimit: operatorRateLimit(app) },
      schema: {
        tags: ['operator'],
        operationId: 'listMailOutbox',
        summary: 'The mail outbox, newest first: with SMTP_URL unset, the development outbox (operator token)',
        security: [{ operatorToken: [] }],
        querystring: Obj({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })), cursor: Type.Optional(Type.String({ maxLength: 200 })) }),
        response: { 200: okResponse(Obj({ items: Type.Array(OutboxItem), next_cursor: Type.Union([Type.String(), Type.Null()]), has_more: Type.Boolean() }), 'A page of messages'), ...errors(403) },
      },
    },
    async (req) => {
      const limit = req.query.limit ?? 20;
      const rows = await app.services.mailStore.list(limit + 1, decodeCursor(req.query.cursor));
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        items: page.map((m) => ({
          id: m.id,
          to: m.to,
          template: m.template,
          subject: m.subject,
          status: m.status,
          attempts: m.attempts,
          created_at: m.createdAt.toISOString(),
          sent_at: m.sentAt === null ? null : m.sentAt.toISOString(),
          transport: m.transport,
          last_error: m.lastError,
          text: m.text,
          html: m.html,
        })),
        next_cursor: rows.length > limit && last !== undefined ? encodeCursor({ createdAtMicros: last.createdAtMicros, id: last.id }) : null,
        has_more: rows.length > limit,
      };
    },
  );
}
