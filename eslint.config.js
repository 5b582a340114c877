// ESLint: typescript-eslint's recommended sets (the type-aware one included) plus the rules that catch
// real bugs in a Node service (lost promises, wrong awaits, non-exhaustive switches, numeric sorts), and
// the architecture rules of issue #18. Why each choice: docs/decisions/foundation-lint.md.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { plugin as architecture } from './tools/lint/architecture.js';

// The architecture debt on the day the rules landed; it must shrink to empty (see the file's "why").
const offenders = JSON.parse(readFileSync(new URL('./tests/architecture/known-offenders.json', import.meta.url), 'utf8'));

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'dist/', 'coverage/', 'console/dist/', 'packages/*/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // tsconfig.json covers src, tests, bench and bin; root-level config files get a default project.
        projectService: { allowDefaultProject: ['*.ts'] },
        tsconfigRootDir: fileURLToPath(new URL('.', import.meta.url)),
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { architecture },
    rules: {
      // Fastify plugins and handlers are async by contract, as are port methods some adapters answer at once.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/return-await': ['error', 'error-handling-correctness-only'],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/require-array-sort-compare': ['error', { ignoreStringArrays: true }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true }],
      eqeqeq: ['error', 'smart'],
      // The text-safety checks match control characters on purpose.
      'no-control-regex': 'off',
      'architecture/domain-imports': ['error', { allow: offenders.imports }],
      'architecture/no-sql-outside-store': ['error', { allow: offenders.sql }],
    },
  },
  {
    files: ['tests/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // Tests and benchmarks read response bodies (`inject().json()`, `fetch().json()`), which are `any`
      // by design; typing each one adds nothing to the assertions made on them.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js'],
    // The few JavaScript files (loaders, worker fixtures, this config) are outside tsconfig.json: no types to read.
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.js'],
    // Node globals (process, URL, setImmediate) would need a globals list; a misspelt one fails at the first run.
    rules: { 'no-undef': 'off' },
  },
);
