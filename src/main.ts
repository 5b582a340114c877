/**
 * The process entry: the only module that reads `process.env`, parses the command
 * line and listens. `qrail serve [--role api|worker|all]`, `qrail migrate`, and the
 * operator commands registered in `src/cli/commands.ts`.
 */
import { createServer, type Server } from 'node:http';
import { buildApp } from './app.js';
import { loadConfig, type Config } from './config/config.js';
import { ConfigError } from './config/env-parser.js';
import { checkFeatureSettings } from './config/feature-settings.js';
import { openDatabase } from './store/open-database.js';
import { migrate } from './store/migrate.js';
import { COMMANDS } from './cli/commands.js';
import { SERVICE_VERSION } from './version.js';
import { describeDatabase, startupFailure } from './cli/startup-report.js';
import { unknownVariables } from './config/known-variables.js';
import { loadBillingConfig } from './billing/billing-config.js';

type Role = 'api' | 'worker' | 'all';

function flag(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  if (i >= 0) return args[i + 1];
  const eq = args.find((a) => a.startsWith(`--${name}=`));
  return eq?.slice(name.length + 3);
}

function unknownVariablesLine(): string | undefined {
  const unknown = unknownVariables(process.env);
  if (unknown.length === 0) return undefined;
  const list = unknown.map((u) => (u.didYouMean === undefined ? u.name : `${u.name} (did you mean ${u.didYouMean}?)`)).join(', ');
  return `ignoring unknown variables that look like qrail settings: ${list}`;
}

async function serve(config: Config, role: Role): Promise<void> {
  const app = await buildApp({ config });
  const unknown = unknownVariablesLine();
  if (unknown !== undefined) app.log.warn({ variables: unknownVariables(process.env).map((u) => u.name) }, unknown);
  const workers = role === 'api' ? [] : app.services.workers;
  for (const w of workers) w.start();
  let jobsServer: Server | undefined;
  if (role !== 'worker') {
    try {
      await app.listen({ port: config.port, host: config.host });
    } catch (e) {
      // Nothing was served: stop the workers, close the store (and its data-directory lock) before the one-line exit.
      await app.close().catch(() => undefined);
      throw e;
    }
    // Compute threads load their TypeScript now, not during the first optimize request.
    app.compute.warm();
    if (config.jobsPort !== undefined) {
      // The same app behind a second listener, so the two interfaces can be exposed separately.
      const server = createServer((req, res) => app.routing(req, res));
      jobsServer = server;
      try {
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(config.jobsPort, config.host, () => {
            server.off('error', reject);
            resolve();
          });
        });
      } catch (e) {
        await app.close().catch(() => undefined);
        throw Object.assign(e as Error, { listenPort: config.jobsPort });
      }
      app.log.info({ port: config.jobsPort }, 'Account Jobs listener started');
    }
  } else {
    await app.ready();
    // The jobs and execution workers run their heavy work on the compute threads too.
    app.compute.warm();
    app.log.info({ workers: workers.map((w) => w.name) }, 'worker role started');
  }
  const processor = loadBillingConfig(config).processor;
  // PORT=0 without PUBLIC_BASE_URL: the default base names port 0; the log names the port chosen.
  const addr = role === 'worker' ? null : app.server.address();
  const base = config.publicBaseUrl === `http://${config.host}:0` && typeof addr === 'object' && addr !== null ? `http://${config.host}:${addr.port}` : config.publicBaseUrl;
  const database = describeDatabase(config);
  app.log.info({ role, database, payment_processor: processor, docs: `${base}/docs` }, `qrail started: ${role} role, database ${database}, payment processor ${processor}, docs ${base}/docs`);
  if (processor === 'sandbox') {
    app.log.warn(
      { payment_processor: 'sandbox' },
      'PAYMENT PROCESSOR IS THE SANDBOX: no real card is charged and top-ups are simulated; set STRIPE_SECRET_KEY (BILLING_PROCESSOR=stripe) before taking real money',
    );
  }

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'draining: finishing in-flight requests, answering new ones 503');
    app.draining = true;
    const force = setTimeout(() => {
      app.log.error('shutdown grace period exceeded; exiting');
      process.exit(1);
    }, config.shutdownGraceMs);
    force.unref();
    void (async () => {
      // Load balancers see /readyz fail and stop routing here; stragglers get 503 meanwhile.
      await new Promise((r) => setTimeout(r, config.shutdownDrainDelayMs));
      for (const w of workers) await w.stop();
      const jobs = jobsServer;
      if (jobs !== undefined) await new Promise((r) => jobs.close(r));
      await app.close();
      process.exit(0);
    })();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

const USAGE = `usage: qrail <command> [options]      (-h/--help: this text, -V/--version: the version)
  serve [--role api|worker|all]   run the service (default role: all)
  migrate                         apply pending database migrations
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(32)}${c.summary}`)
  .join('\n')}`;

// Set once the environment parsed, so a later startup failure can name the database and address.
let loaded: Config | undefined;

/** Flags each built-in command takes (`--name value` or `--name=value`); anything else is refused. */
const BUILTIN_FLAGS: Record<string, readonly string[]> = { serve: ['role'], migrate: [] };

function unknownFlag(args: readonly string[], allowed: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const name = a.startsWith('--') ? a.slice(2).split('=')[0]! : undefined;
    if (name === undefined || !allowed.includes(name)) return a;
    if (!a.includes('=')) i++; // its value
  }
  return undefined;
}

async function main(argv: readonly string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  // Help and version never start, migrate or open anything, whatever command they follow.
  if (argv.includes('--help') || argv.includes('-h') || cmd === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (argv.includes('--version') || argv.includes('-V')) {
    process.stdout.write(`qrail ${SERVICE_VERSION}\n`);
    return 0;
  }
  const allowed = BUILTIN_FLAGS[cmd ?? 'serve'];
  const bad = allowed === undefined ? undefined : unknownFlag(rest, allowed);
  if (bad !== undefined) {
    process.stderr.write(`qrail ${cmd ?? 'serve'}: unknown argument "${bad}"\n${USAGE}\n`);
    return 2;
  }
  let config: Config;
  try {
    config = loadConfig(process.env);
    checkFeatureSettings(config);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      return 2;
    }
    throw e;
  }
  loaded = config;
  if (cmd !== undefined && cmd !== 'serve' && cmd !== 'help' && cmd !== '--help') {
    const unknown = unknownVariablesLine();
    if (unknown !== undefined) process.stderr.write(`warning: ${unknown}\n`);
  }
  switch (cmd) {
    case undefined:
    case 'serve': {
      const role = (flag(rest, 'role') ?? 'all') as Role;
      if (!['api', 'worker', 'all'].includes(role)) {
        process.stderr.write(`--role must be api, worker or all\n`);
        return 2;
      }
      await serve(config, role);
      return -1; // keep running
    }
    case 'migrate': {
      const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      const applied = await migrate(db);
      await db.close();
      process.stdout.write(applied.length === 0 ? 'database is up to date\n' : `applied ${applied.join(', ')}\n`);
      return 0;
    }
    default: {
      const key = [cmd, rest[0]].filter(Boolean).join(' ');
      const command = COMMANDS[key] ?? COMMANDS[cmd];
      if (command === undefined) {
        process.stderr.write(`unknown command "${cmd}"\n${USAGE}\n`);
        return 2;
      }
      return command.run(config, COMMANDS[key] !== undefined ? rest.slice(1) : rest, { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) });
    }
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (e: unknown) => {
    // Whatever reaches here happened before the process was serving.
    const line = startupFailure(e, loaded);
    if (line !== undefined) {
      process.stderr.write(`${line}\n`);
      process.exit(2);
    }
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
