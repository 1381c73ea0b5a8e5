import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import globals from 'globals';

// The direction of src/ (docs/architecture.md "Layers"): http, web -> render -> services ->
// store/engine. Each zone forbids `target` to import `from`. jobs, pubsub, blobs, mail and
// callbacks sit below services; the engine imports nothing of sheetd outside src/engine (and only
// the npm packages named below); cli and server.ts compose everything and nothing imports them.
const layers = [
  { target: './src/services', from: ['./src/http', './src/web', './src/render', './src/cli', './src/server.ts'], message: 'services never import http, pages or renderers (move the helper below them)' },
  { target: './src/store', from: ['./src/services', './src/http', './src/web', './src/render', './src/jobs', './src/pubsub', './src/blobs', './src/mail', './src/callbacks', './src/cli', './src/server.ts'], message: 'store is the bottom layer: SQL only' },
  { target: './src/engine', from: './src', except: ['./engine'], message: 'the engine is pure: it imports nothing of sheetd outside src/engine' },
  { target: ['./src/jobs', './src/pubsub', './src/blobs', './src/mail'], from: ['./src/services', './src/http', './src/web', './src/render', './src/cli', './src/server.ts'], message: 'jobs, pubsub, blobs and mail sit below services' },
  { target: './src/callbacks', from: ['./src/services', './src/store', './src/http', './src/web', './src/render', './src/jobs', './src/cli', './src/server.ts'], message: 'callbacks (outgoing webhook requests) sit below services: they know HTTPS and their limits, nothing of the domain' },
  { target: './src/render', from: ['./src/http', './src/web', './src/cli', './src/server.ts', './src/jobs'], message: 'render (rows shown as cells, CSV, Excel, PDF, mail bodies) is used by http, pages and the CLI, and imports none of them' },
  { target: './src/web', from: ['./src/http/routes', './src/http/api.ts', './src/store', './src/cli', './src/server.ts'], message: 'pages call services and presenters, never a route module or the store' },
  { target: './src/http', from: ['./src/cli', './src/server.ts'], message: 'http is composed by server.ts, never the reverse' },
  { target: ['./src/errors.ts', './src/clock.ts', './src/ids.ts', './src/config.ts', './src/paging.ts'], from: ['./src/services', './src/http', './src/web', './src/render', './src/store', './src/jobs', './src/pubsub', './src/cli', './src/server.ts'], message: 'shared leaf modules import no layer' },
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
        patterns: [
          { regex: '^kysely$', allowTypeImports: true, message: 'services run no SQL: add a function to src/store' },
          { regex: '^(pg|pg-.*|better-sqlite3)$', message: 'services run no SQL and hold no connection: add a function to src/store' },
        ],
      }],
      'no-restricted-syntax': ['error', {
        selector: "CallExpression[callee.property.name=/^(selectFrom|insertInto|updateTable|deleteFrom|executeQuery)$/]",
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
    // The engine is pure TypeScript: of npm, only the packages named here.
    files: ['src/engine/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{ regex: '^(?!\\.|sanitize-html$)', message: 'the engine imports the engine and the npm packages named in eslint.config.js only' }],
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
