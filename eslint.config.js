import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import globals from 'globals';

// The direction of src/ (docs/architecture.md "Layers"): http -> services -> store/engine.
// Each zone forbids `target` to import `from`. jobs, pubsub, blobs and mail sit below services; the
// engine imports nothing of sheetd outside src/engine; cli and server.ts compose everything and
// nothing imports them.
const layers = [
  { target: './src/services', from: ['./src/http', './src/cli', './src/server.ts'], message: 'services never import http (move the helper below http)' },
  { target: './src/store', from: ['./src/services', './src/http', './src/jobs', './src/pubsub', './src/blobs', './src/mail', './src/cli', './src/server.ts'], message: 'store is the bottom layer: SQL only' },
  { target: './src/engine', from: './src', except: ['./engine'], message: 'the engine is pure: it imports nothing of sheetd outside src/engine' },
  { target: ['./src/jobs', './src/pubsub', './src/blobs', './src/mail'], from: ['./src/services', './src/http', './src/cli', './src/server.ts'], message: 'jobs, pubsub, blobs and mail sit below services' },
  { target: './src/http', from: ['./src/cli', './src/server.ts'], message: 'http is composed by server.ts, never the reverse' },
  { target: ['./src/errors.ts', './src/clock.ts', './src/ids.ts', './src/config.ts', './src/logger.ts'], from: ['./src/services', './src/http', './src/store', './src/jobs', './src/cli', './src/server.ts'], message: 'shared leaf modules import no layer' },
];

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'coverage/', '.build/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', Buffer: 'readonly', URL: 'readonly', URLSearchParams: 'readonly', fetch: 'readonly', AbortController: 'readonly', setImmediate: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [importX.createNodeResolver({ extensions: ['.ts', '.js'] })],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: layers }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // Services run no SQL: they call named functions of src/store.
    files: ['src/services/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{ regex: '^kysely$', allowTypeImports: true, message: 'services run no SQL: add a function to src/store' }],
      }],
      'no-restricted-syntax': ['error', {
        selector: "CallExpression[callee.property.name=/^(selectFrom|insertInto|updateTable|deleteFrom)$/]",
        message: 'services run no SQL: call a named function of src/store',
      }],
    },
  },
  {
    // Routes and presenters run no SQL and open no transactions: they may name the store's row
    // types, but call services, which own the transaction and call the store.
    files: ['src/http/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [
          { regex: '(^|/)store/', allowTypeImports: true, message: 'http calls services; SQL and transactions live below (services own the transaction, src/store runs the SQL)' },
          { regex: '^kysely$', allowTypeImports: true, message: 'http runs no SQL' },
        ],
      }],
      'no-restricted-syntax': ['error', {
        selector: "CallExpression[callee.property.name=/^(transaction|selectFrom|insertInto|updateTable|deleteFrom)$/]",
        message: 'http runs no SQL and opens no transaction: call a service',
      }],
    },
  },
  {
    // The web app runs in the browser: it talks to the server through the API only (api.ts).
    files: ['src/web/app/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: [{ target: './src/web/app', from: './src', except: ['./web/app'], message: 'the web app is a client of the API: it imports nothing of the server' }] }],
    },
  },
);
