import type { Config } from 'jest';

/**
 * The engine specs: the store and the relay on Redis Cluster, Sentinel, Valkey, an ACL user, and the
 * relay's HTTP contract per engine (spec/relay/). They test the engines and the clients, not the
 * Node version, and take most of the relay specs' time: `ENGINE_SPECS=skip` leaves them out, as
 * `npm run test:node24` does (they run in `npm test`).
 */
const ENGINE_SPECS = ['cluster', 'clusterContract', 'sentinel', 'valkey', 'acl', 'relayContract'];

/**
 * The browser specs: the library, its Angular examples and the screen's recipe built and run in
 * Chromium. They test the bundles in a browser, not the Node that builds them, and take a build each:
 * `BROWSER_SPECS=skip` leaves them out, as `npm run test:node24` does (they run in `npm test`).
 */
const BROWSER_SPECS = ['examples/angular', 'examples/browser', 'screen/angularReply'];

/**
 * The sweeps: every recording of marbles/ read at several splits with each dialect, every test-kit
 * writer checked against every dialect, every code block of the docs type-checked. They run the pure
 * cores (or the compiler) over data, which no Node version changes: `SWEEP_SPECS=skip` leaves them
 * out, as `npm run test:node24` does (they run in `npm test`).
 */
const SWEEP_SPECS = ['corpus', 'recordings', 'testing/expectReplyDialects', 'docs'];

const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/spec'],
  testMatch: ['**/*.spec.ts'],
  testPathIgnorePatterns: [
    '/node_modules/',
    ...(process.env['ENGINE_SPECS'] === 'skip' ? [`/spec/relay/(${ENGINE_SPECS.join('|')})\\.spec\\.ts$`] : []),
    ...(process.env['BROWSER_SPECS'] === 'skip' ? [`/spec/(${BROWSER_SPECS.join('|')})\\.spec\\.ts$`] : []),
    ...(process.env['SWEEP_SPECS'] === 'skip' ? [`/spec/(${SWEEP_SPECS.join('|')})\\.spec\\.ts$`] : []),
  ],
  // Two workers, not Jest's default of one fewer than the cores: most specs wait on servers, sockets
  // and timers rather than compute, and on a 2-core machine the default is a single worker.
  maxWorkers: 2,
  // Builds dist/ once, before the workers start: several specs load the built package.
  globalSetup: '<rootDir>/spec/support/globalSetup.ts',
  transform: {
    '^.+\\.ts$': [
      'ts-jest',
      {
        tsconfig: {
          module: 'commonjs',
          moduleResolution: 'node10',
          ignoreDeprecations: '6.0',
          isolatedModules: true,
          experimentalDecorators: true,
          emitDecoratorMetadata: true,
        },
      },
    ],
    // eventsource-parser 4 (a judge of the test kit's SSE) is published as ES modules only, which
    // Jest's CommonJS runtime cannot require on Node 20: its files are compiled like the specs.
    '^.+/node_modules/eventsource-parser/.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs', isolatedModules: true } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!eventsource-parser/)'],
  // Sources import with `.js` extensions (required by the ESM build); Jest resolves the `.ts` file.
  // The recipes (spec/recipes/) import the package by its name, as its users do: from the sources.
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    '^rxjs-llm-stream$': '<rootDir>/src/index.ts',
    '^rxjs-llm-stream/testing$': '<rootDir>/src/testing/index.ts',
    '^rxjs-llm-stream/core$': '<rootDir>/src/core/index.ts',
  },
};

export default config;
