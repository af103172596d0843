import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const typed = ['**/src/**/*.ts', '**/src/**/*.tsx', '**/test/**/*.ts'];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'data/**', 'cli/src/console/assets/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': ['error', { allow: ['error', 'warn'] }],
    },
  },
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: typed })),
  {
    files: typed,
    languageOptions: {
      parserOptions: {
        // The root tsconfig covers the tests; each workspace's own tsconfig covers its src/.
        project: [
          './tsconfig.json',
          './*/tsconfig.json',
          './config/kit/tsconfig.json',
          './workers/*/tsconfig.json',
          './console/web/tsconfig.json',
        ],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // A `default` branch that answers the remaining message types is deliberate exhaustive handling.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // Methods implementing a Promise-returning interface stay `async` so a synchronous throw becomes a rejection.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-base-to-string': 'error',
      '@typescript-eslint/unbound-method': 'error',
    },
  },
  {
    files: ['**/test/**/*.ts'],
    rules: {
      // Tests read untyped JSON answers off the wire and assert on their fields directly.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Tests cast an SDK `trigger` answer to the shape they assert on; type arguments would only restate it.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
    },
  },
  {
    files: ['**/test/**', 'scripts/**', 'cli/src/**'],
    rules: { 'no-console': 'off' },
  },
);
