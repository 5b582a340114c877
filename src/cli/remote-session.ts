import { createClient, QrailApiError, type QrailClient } from '../../packages/client/src/index.js';
import { EXIT, type CliCommand, type CliContext, type OptionSpec, type ParsedInput } from './cli-command.js';
import { CommandFailure, reportFailure } from './output.js';
import { normaliseUrl, readUserConfig, withService, writeUserConfig, type ServiceEntry, type UserConfig } from './user-config.js';

/**
 * What a client command works with: the typed client (packages/client) pointed at the service
 * and carrying the saved login, and the config file to update. Where the base URL and the
 * credentials come from, first match wins:
 *   URL:   --url, QRAIL_URL, the config file's current service, http://127.0.0.1:8080
 *   token: QRAIL_TOKEN (a `qrs_` session token, else a Jobs token), then the saved login
 *   org:   --org, QRAIL_ORG, none (the person's personal organization, or the credential's own)
 */
export const DEFAULT_URL = 'http://127.0.0.1:8080';

export const REMOTE_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  url: { type: 'string', value: 'url', description: `the service base URL (default: QRAIL_URL, else the logged-in service, else ${DEFAULT_URL})` },
  json: { type: 'boolean', description: 'machine output: one JSON document on stdout; errors as JSON on stderr' },
  org: { type: 'string', value: 'org_id', description: 'the organization to act in, sent as Qrail-Org (default: QRAIL_ORG, else your personal one)' },
};

export interface RemoteService {
  readonly url: string;
  readonly client: QrailClient;
  readonly configFile: string;
  readonly config: UserConfig;
  readonly entry: ServiceEntry;
  readonly json: boolean;
  /** The organization requests act in (--org, else QRAIL_ORG); undefined: the personal one or the credential's. */
  readonly org: string | undefined;
  /** The same client without Qrail-Org: for what a person does as themself (accepting an invitation). */
  withoutOrg(): QrailClient;
  /** True when requests carry a platform session token. */
  readonly hasSession: boolean;
  /** True when requests to the Account Jobs interface carry a credential or token. */
  readonly hasJobsAuth: boolean;
  /** Replaces this service's saved entry (undefined: forget it) and makes it current. */
  save(entry: ServiceEntry | undefined): void;
}

export function openService(input: ParsedInput, ctx: CliContext): RemoteService {
  const loaded = readUserConfig(ctx.remote.configFile);
  if (loaded.warning !== undefined) ctx.io.err(`warning: ${loaded.warning}\n`);
  const config = loaded.config;
  const flagUrl = typeof input.options['url'] === 'string' ? input.options['url'] : undefined;
  const url = normaliseUrl(flagUrl ?? ctx.remote.url ?? config.current ?? DEFAULT_URL);
  if (!/^https?:\/\/[^/]/.test(url)) throw new CommandFailure({ code: 'USAGE', message: `not an http(s) URL: ${url}` }, EXIT.USAGE);
  const entry = config.services[url] ?? {};
  const envToken = ctx.remote.token;
  const envSession = envToken?.startsWith('qrs_') === true ? envToken : undefined;
  const envJobs = envToken !== undefined && envSession === undefined ? envToken : undefined;
  const session = envSession ?? entry.session?.token;
  const credential = entry.credential;
  const flagOrg = typeof input.options['org'] === 'string' ? input.options['org'].trim() : undefined;
  const org = flagOrg === '' ? undefined : (flagOrg ?? ctx.remote.org);
  const makeClient = (orgId: string | undefined) =>
    createClient({
      baseUrl: url,
      ...(orgId === undefined ? {} : { org: orgId }),
      token: session,
      ...(envJobs !== undefined
        ? { jobsToken: envJobs }
        : credential !== undefined
          ? { clientCredentials: { clientId: credential.client_id, clientSecret: credential.client_secret, ...(credential.scope === undefined ? {} : { scope: credential.scope }) } }
          : {}),
      ...(ctx.fetch === undefined ? {} : { fetch: ctx.fetch }),
    });
  const client = makeClient(org);
  return {
    url,
    client,
    org,
    withoutOrg: () => (org === undefined ? client : makeClient(undefined)),
    configFile: ctx.remote.configFile,
    config,
    entry,
    json: input.options['json'] === true,
    hasSession: session !== undefined,
    hasJobsAuth: envJobs !== undefined || credential !== undefined,
    save(next) {
      writeUserConfig(ctx.remote.configFile, withService(readUserConfig(ctx.remote.configFile).config, url, next));
    },
  };
}

export function requireSession(svc: RemoteService): void {
  if (!svc.hasSession) {
    throw new CommandFailure({ code: 'NOT_LOGGED_IN', message: `this command needs a session on ${svc.url}: run \`qrail login --email <email>\` (or set QRAIL_TOKEN to a qrs_ session token)` });
  }
}

export function requireJobsAuth(svc: RemoteService): void {
  if (!svc.hasJobsAuth) {
    throw new CommandFailure({
      code: 'NOT_LOGGED_IN',
      message: `this command uses the Account Jobs interface of ${svc.url}, which needs a machine credential: run \`qrail credentials create --name <name> --login\` or \`qrail login --credential <id>:<secret>\` (or set QRAIL_TOKEN to a Jobs token)`,
    });
  }
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET']);

function networkReason(e: unknown): string | undefined {
  if (!(e instanceof Error)) return undefined;
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code !== undefined && NETWORK_CODES.has(cause.code)) return `${cause.code}${cause.message ? ` (${cause.message})` : ''}`;
  return e instanceof TypeError && e.message === 'fetch failed' ? (cause?.message ?? 'fetch failed') : undefined;
}

type RemoteRun = (input: ParsedInput, svc: RemoteService, ctx: CliContext) => Promise<number>;

/**
 * A client command: REMOTE_OPTIONS added to its own, the service opened before `run`, and every
 * failure reported the same way — an API error with its code, request id and details (each
 * validation problem at its JSON path), an unreachable service, a missing login — exit 1.
 */
export function remoteCommand(spec: Omit<CliCommand, 'run'> & { readonly run: RemoteRun }): CliCommand {
  return {
    ...spec,
    options: { ...spec.options, ...REMOTE_OPTIONS },
    async run(input, ctx) {
      const json = input.options['json'] === true;
      let url = ctx.remote.url ?? DEFAULT_URL;
      try {
        const svc = openService(input, ctx);
        url = svc.url;
        return await spec.run(input, svc, ctx);
      } catch (e) {
        if (e instanceof CommandFailure) return reportFailure(ctx.io, json, e.failure, e.exitCode);
        if (e instanceof QrailApiError) {
          const hint = e.status === 401 ? ' — log in again: qrail login' : '';
          return reportFailure(ctx.io, json, {
            code: e.code,
            message: `${e.message.replace(/^[A-Z]+ \S+: \d+ [A-Za-z0-9_]+: /, '')}${hint}`,
            status: e.status,
            ...(e.requestId === undefined ? {} : { requestId: e.requestId }),
            ...(e.details === undefined ? {} : { details: e.details }),
          });
        }
        const reason = networkReason(e);
        if (reason !== undefined)
          return reportFailure(ctx.io, json, { code: 'NETWORK_ERROR', message: `cannot reach the service at ${url}: ${reason}; is it running? (--url or QRAIL_URL say where)` });
        throw e;
      }
    },
  };
}
