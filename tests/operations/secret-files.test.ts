import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { ConfigError } from '../../src/config/env-parser.js';
import { unknownVariables } from '../../src/config/known-variables.js';
import { withSecretFiles } from '../../src/config/secret-files.js';

const read = (path: string) => readFileSync(path, 'utf8');

describe('secrets from *_FILE variables', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qrail-secrets-'));
  const urlFile = join(dir, 'database_url');
  writeFileSync(urlFile, 'postgres://qrail:s3cret@db:5432/qrail\n');

  it('reads the file into the variable, without its final line break, and the config takes it', () => {
    const env = withSecretFiles({ DATABASE_URL_FILE: urlFile, PUBLIC_BASE_URL: 'https://q.example' }, read);
    expect(env['DATABASE_URL']).toBe('postgres://qrail:s3cret@db:5432/qrail');
    expect(loadConfig(env).databaseUrl).toBe('postgres://qrail:s3cret@db:5432/qrail');
  });

  it('refuses both the variable and its file, and an unreadable file, naming the variable', () => {
    expect(() => withSecretFiles({ DATABASE_URL: 'postgres://a@b/c', DATABASE_URL_FILE: urlFile }, read)).toThrow(/DATABASE_URL_FILE cannot be set together with DATABASE_URL/);
    const missing = join(dir, 'absent');
    expect(() => withSecretFiles({ STRIPE_SECRET_KEY_FILE: missing }, read)).toThrow(ConfigError);
  });

  it('leaves variables without a file alone, and only secrets have files', () => {
    expect(withSecretFiles({ PORT: '9000', PORT_FILE: urlFile }, read)).toEqual({ PORT: '9000', PORT_FILE: urlFile });
  });

  it('does not call a secret file variable a slip, but does call an unknown *_FILE one', () => {
    expect(unknownVariables({ DATABASE_URL_FILE: urlFile, STRIPE_SECRET_KEY_FILE: urlFile }).map((u) => u.name)).toEqual([]);
    expect(unknownVariables({ STRIPE_NONSENSE_FILE: urlFile }).map((u) => u.name)).toEqual(['STRIPE_NONSENSE_FILE']);
  });
});

describe('REDIS_KEY_PREFIX', () => {
  it('defaults to qrail: and takes another deployment prefix', () => {
    expect(loadConfig({}).redisKeyPrefix).toBe('qrail:');
    expect(loadConfig({ REDIS_KEY_PREFIX: 'staging-eu:' }).redisKeyPrefix).toBe('staging-eu:');
  });

  it('refuses a prefix without the separator or with spaces', () => {
    expect(() => loadConfig({ REDIS_KEY_PREFIX: 'staging' })).toThrow(/REDIS_KEY_PREFIX/);
    expect(() => loadConfig({ REDIS_KEY_PREFIX: 'a b:' })).toThrow(/REDIS_KEY_PREFIX/);
  });
});
