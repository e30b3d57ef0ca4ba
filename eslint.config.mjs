// ESLint for the TypeScript and JavaScript of the repository (Prettier owns the layout; `max-len`
// holds what Prettier cannot wrap: comments and long strings).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/', 'marbles/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      // Node for the library, its specs, scripts and benchmarks; the browser for examples/browser.
      globals: { ...globals.node, ...globals.browser },
    },
    rules: {
      'max-len': ['error', { code: 140, tabWidth: 2, ignoreUrls: true }],
      // The compiler checks unused names (`noUnusedLocals`), with the project's own exceptions.
      '@typescript-eslint/no-unused-vars': 'off',
      'no-unused-vars': 'off',
    },
  },
);
