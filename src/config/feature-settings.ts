/**
 * Every feature's environment settings, parsed once before anything is opened. The domains
 * parse their own variables when the app is built; checking them here first means a bad value
 * stops `qrail` with the variable's name (exit 2) instead of a stack trace after the database
 * was opened and migrated.
 */
import type { Config } from './config.js';
import { loadBillingConfig } from '../billing/billing-config.js';
import { couplingSettingsFromEnv } from '../coupling/settings.js';
import { executionSettings } from '../execution/settings.js';
import { jobsSettings } from '../composition/jobs.js';
import { parseMediaSettings } from '../media/media-settings.js';
import { webhookSettings } from '../webhooks/settings.js';
import { mailSettings } from '../mail/mail-settings.js';

/** Throws the `ConfigError` of the first bad feature variable. */
export function checkFeatureSettings(config: Config): void {
  loadBillingConfig(config);
  couplingSettingsFromEnv(config.env);
  executionSettings(config.env);
  jobsSettings(config);
  parseMediaSettings(config.env);
  webhookSettings(config.env);
  mailSettings(config.env, config.publicBaseUrl);
}
