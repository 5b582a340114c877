/**
 * The process entry: the only module that reads `process.env`. It hands the command line to
 * the dispatcher (src/cli/run-cli.ts) with what commands may need from the environment: the
 * service configuration (parsed only when a server or operator command asks for it) and the
 * client settings (QRAIL_URL, QRAIL_TOKEN, the per-user config file).
 */
import { readFileSync } from 'node:fs';
import { loadConfig, type Config } from './config/config.js';
import { withSecretFiles } from './config/secret-files.js';
import { ConfigError } from './config/env-parser.js';
import { CLI_ENVIRONMENT, SECTIONS } from './cli/commands.js';
import { KEEP_RUNNING, type CliContext } from './cli/cli-command.js';
import { runCli } from './cli/run-cli.js';
import { unknownVariablesLine } from './cli/server-commands.js';
import { startupFailure } from './cli/startup-report.js';
import { defaultConfigFile, terminalIo } from './cli/terminal-io.js';
import { SERVICE_VERSION } from './version.js';

// Set once the environment parsed, so a later startup failure can name the database and address.
let loaded: Config | undefined;

const io = terminalIo();
const ctx: CliContext = {
  io,
  async serverConfig(opts) {
    // Secrets may come as files (X_FILE, src/config/secret-files.ts): read here, the one place that reads the environment.
    const config = loadConfig(withSecretFiles(process.env, (path) => readFileSync(path, 'utf8')));
    // Every feature's parser, loaded only when a command needs the service's settings (help stays fast).
    const { checkFeatureSettings } = await import('./config/feature-settings.js');
    checkFeatureSettings(config);
    loaded = config;
    // serve logs this line itself (as JSON, with the variables); other commands print it.
    const unknown = opts?.quietUnknownVariables === true ? undefined : unknownVariablesLine(process.env);
    if (unknown !== undefined) io.err(`warning: ${unknown}\n`);
    return config;
  },
  remote: {
    ...(process.env['QRAIL_URL'] ? { url: process.env['QRAIL_URL'] } : {}),
    ...(process.env['QRAIL_TOKEN'] ? { token: process.env['QRAIL_TOKEN'] } : {}),
    ...(process.env['QRAIL_ORG'] ? { org: process.env['QRAIL_ORG'] } : {}),
    configFile: process.env['QRAIL_CONFIG'] || defaultConfigFile(process.env['XDG_CONFIG_HOME']),
  },
};

runCli(process.argv.slice(2), ctx, { sections: SECTIONS, version: SERVICE_VERSION, environment: CLI_ENVIRONMENT }).then(
  (code) => {
    if (code !== KEEP_RUNNING) process.exit(code);
  },
  (e: unknown) => {
    // An invalid setting, or whatever stopped the service before it was serving: one line, exit 2.
    const line = e instanceof ConfigError ? e.message : startupFailure(e, loaded);
    if (line !== undefined) {
      process.stderr.write(`${line}\n`);
      process.exit(2);
    }
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
