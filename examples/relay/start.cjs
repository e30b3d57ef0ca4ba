// Runs examples/relay from its TypeScript sources over the built package (`npm run relay` builds it
// first): the example imports `rxjs-llm-stream` and `rxjs-llm-stream/relay` by name, as an app does,
// and Node resolves them to this package's own dist/ through its "exports".
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('ts-node').register({
  transpileOnly: true,
  compilerOptions: { module: 'commonjs', moduleResolution: 'node10', ignoreDeprecations: '6.0', rootDir: __dirname },
});
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('./src/main.ts');
