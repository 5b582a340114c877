import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRequest {
  method: string;
  path: string;
  form: URLSearchParams;
  headers: IncomingMessage['headers'];
}

/** A tiny stand-in for api.stripe.com: enough of customers, intents, checkout and portal for the adapter. */
export class FakeStripe {
  readonly requests: FakeRequest[] = [];
  readonly sessions = new Map<string, Record<string, unknown>>();
  private server: Server | undefined;
  private n = 0;
  port = 0;

  private id(prefix: string): string {
    this.n += 1;
    return `${prefix}_fake_${this.n}`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://fake');
        const form = new URLSearchParams(body);
        this.requests.push({ method: req.method ?? '', path: url.pathname, form, headers: req.headers });
        const [status, out] = this.route(req.method ?? '', url.pathname, form);
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${this.n}` });
        res.end(JSON.stringify(out));
      });
    });
    await new Promise<void>((r) => this.server?.listen(0, '127.0.0.1', r));
    this.port = (this.server?.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    await new Promise<void>((r) => this.server?.close(() => r()));
  }

  private metadata(form: URLSearchParams, prefix = 'metadata'): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of form) {
      const m = new RegExp(`^${prefix.replace(/[[\]]/g, '\\$&')}\\[(\\w+)\\]$`).exec(k);
      if (m?.[1] !== undefined) out[m[1]] = v;
    }
    return out;
  }

  private route(method: string, path: string, f: URLSearchParams): [number, unknown] {
    if (method === 'POST' && path === '/v1/customers') return [200, { id: this.id('cus'), object: 'customer', email: f.get('email'), metadata: this.metadata(f) }];
    if (method === 'POST' && path === '/v1/setup_intents') {
      const pm = f.get('payment_method');
      const id = this.id('seti');
      return [200, { id, object: 'setup_intent', customer: f.get('customer'), client_secret: `${id}_secret`, status: pm ? 'succeeded' : 'requires_payment_method', payment_method: pm }];
    }
    if (method === 'POST' && path === '/v1/payment_intents') {
      const id = this.id('pi');
      const pm = f.get('payment_method');
      const confirm = f.get('confirm') === 'true';
      const pi = {
        id,
        object: 'payment_intent',
        amount: Number(f.get('amount')),
        currency: f.get('currency'),
        customer: f.get('customer'),
        payment_method: pm,
        metadata: this.metadata(f),
        client_secret: `${id}_secret`,
      };
      if (confirm && pm === 'pm_card_chargeDeclined') {
        return [
          402,
          { error: { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.', payment_intent: { ...pi, status: 'requires_payment_method' } } },
        ];
      }
      return [200, { ...pi, status: confirm && pm ? 'succeeded' : 'requires_payment_method', amount_received: confirm && pm ? pi.amount : 0 }];
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      const id = this.id('cs');
      const s = {
        id,
        object: 'checkout.session',
        url: `https://checkout.fake/${id}`,
        status: 'open',
        payment_status: 'unpaid',
        mode: f.get('mode'),
        amount_total: Number(f.get('line_items[0][price_data][unit_amount]')),
        currency: f.get('line_items[0][price_data][currency]'),
        customer: f.get('customer'),
        metadata: this.metadata(f),
        payment_intent: null,
        expires_at: Math.floor(Date.now() / 1000) + 86_400,
      };
      this.sessions.set(id, s);
      return [200, s];
    }
    const cs = /^\/v1\/checkout\/sessions\/([\w]+)$/.exec(path);
    if (method === 'GET' && cs?.[1] !== undefined) {
      const s = this.sessions.get(cs[1]);
      return s === undefined ? [404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such checkout.session' } }] : [200, s];
    }
    if (method === 'POST' && path === '/v1/billing_portal/sessions') {
      const id = this.id('bps');
      return [200, { id, object: 'billing_portal.session', url: `https://billing.fake/${id}`, customer: f.get('customer'), return_url: f.get('return_url') }];
    }
    return [404, { error: { type: 'invalid_request_error', message: `fake has no ${method} ${path}` } }];
  }

  /** What Stripe does when the customer pays on the hosted page. */
  pay(sessionId: string): Record<string, unknown> {
    const s = this.sessions.get(sessionId);
    if (s === undefined) throw new Error('no session');
    const paid = { ...s, status: 'complete', payment_status: 'paid', payment_intent: this.id('pi') };
    this.sessions.set(sessionId, paid);
    return paid;
  }
}
