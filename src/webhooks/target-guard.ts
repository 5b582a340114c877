/**
 * Where outbound webhooks may go (docs/webhooks.md#where-webhooks-may-go): http(s) URLs without
 * credentials whose host resolves only to globally reachable addresses (the classifier holds the
 * IANA special-purpose tables: adapters/special-purpose-addresses.ts). Checked when an endpoint is registered
 * and again before every delivery, which then connects to the address checked here (no second DNS
 * answer in between: a rebinding host cannot swap in a private address).
 */
import { fail } from '../errors/app-error.js';
import { WEBHOOKS_ERRORS } from './error-codes.js';
import type { AddressClassifier, HostResolver } from './ports.js';

export interface CheckedTarget {
  readonly url: URL;
  /** The addresses the host resolved to, each allowed; deliveries connect to the first. */
  readonly addresses: readonly string[];
}

function refuse(reason: string, message: string): never {
  throw fail(WEBHOOKS_ERRORS.WEBHOOK_URL_NOT_ALLOWED, message, { reason });
}

/** The URL's shape alone: http(s), a host, no user:password. */
export function parseTargetUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('not_a_url', 'The endpoint URL is not an absolute URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') refuse('scheme', `Only http and https URLs are allowed, not ${url.protocol}.`);
  if (url.username !== '' || url.password !== '') refuse('credentials', 'The endpoint URL must not carry a user name or password.');
  if (url.hostname === '') refuse('host', 'The endpoint URL has no host.');
  return url;
}

/** How a target is checked: the resolver, the address classifier, and the deployment's WEBHOOK_ALLOW_PRIVATE_TARGETS. */
export interface TargetPolicy {
  readonly resolver: HostResolver;
  readonly classify: AddressClassifier;
  readonly allowPrivate: boolean;
}

/** Resolves the host and refuses any address that is not globally reachable unless `allowPrivate`. */
export async function checkTarget(raw: string, policy: TargetPolicy): Promise<CheckedTarget> {
  const { resolver, classify, allowPrivate } = policy;
  const url = parseTargetUrl(raw);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = await resolver.resolve(host);
  if (addresses.length === 0) throw fail(WEBHOOKS_ERRORS.WEBHOOK_URL_UNRESOLVABLE, `The host ${host} does not resolve.`);
  if (!allowPrivate) {
    for (const a of addresses) {
      const reason = classify(a);
      if (reason !== null) refuse(reason, `The host ${host} resolves to a ${reason} address (${a}); webhooks go only to globally reachable addresses.`);
    }
  }
  return { url, addresses };
}
