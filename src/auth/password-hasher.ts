import { argon2id, argon2Verify } from 'hash-wasm';

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
}

export interface Argon2Params {
  readonly memoryKiB: number;
  readonly iterations: number;
  readonly parallelism: number;
}

/** argon2id, OWASP Password Storage Cheat Sheet minimum m=19 MiB, t=2, p=1; PHC string output. */
export function argon2idHasher(p: Argon2Params): PasswordHasher {
  return {
    async hash(password) {
      const salt = new Uint8Array(16);
      globalThis.crypto.getRandomValues(salt);
      return argon2id({
        password,
        salt,
        memorySize: p.memoryKiB,
        iterations: p.iterations,
        parallelism: p.parallelism,
        hashLength: 32,
        outputType: 'encoded',
      });
    },
    async verify(hash, password) {
      try {
        return await argon2Verify({ password, hash });
      } catch {
        return false;
      }
    },
  };
}
