import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { OutboundResult, WebhookSender } from '../ports.js';

const EXCERPT_CHARS = 512;
/** Read no more than this of a response: only an excerpt is kept. */
const READ_LIMIT = 4096;

/**
 * POSTs with node:http(s), connected to the address the guard checked (the URL's host stays the
 * Host header and the TLS server name), with one timeout for the whole exchange. Redirects are not
 * followed: a 3xx is a failed attempt, so a receiver cannot bounce a delivery to another host.
 */
export const nodeHttpSender: WebhookSender = {
  send(req) {
    return new Promise<OutboundResult>((resolve) => {
      const family = isIP(req.address);
      const lookup: LookupFunction = (_host, opts, cb) => {
        if ((opts as { all?: boolean }).all === true) (cb as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address: req.address, family }]);
        else cb(null, req.address, family);
      };
      const make = req.url.protocol === 'https:' ? httpsRequest : httpRequest;
      let settled = false;
      const done = (r: OutboundResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(r);
      };
      const r = make(req.url, { method: 'POST', headers: { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) }, lookup }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (text.length < READ_LIMIT) text += chunk;
          else res.destroy();
        });
        const finish = () => done({ statusCode: res.statusCode ?? null, error: null, excerpt: text === '' ? null : text.slice(0, EXCERPT_CHARS) });
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      });
      const timer = setTimeout(() => {
        r.destroy();
        done({ statusCode: null, error: `timeout after ${req.timeoutMs} ms`, excerpt: null });
      }, req.timeoutMs);
      r.on('error', (e) => done({ statusCode: null, error: e.message.slice(0, EXCERPT_CHARS), excerpt: null }));
      r.end(req.body);
    });
  },
};
