import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Both drivers run the same files; with DATABASE_URL each app gets its own schema.
    sequence: { concurrent: false },
  },
});
