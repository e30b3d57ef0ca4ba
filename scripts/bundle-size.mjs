// Prints what the package costs a browser app: each bundle of scripts/measure-bundles.cjs (a few
// lines a user writes, bundled and minified by esbuild, rxjs included), in bytes minified and
// gzipped, beside the budget spec/bundleSize.spec.ts holds it to and the goal. With `--inputs`, also
// the minified bytes each file left in each bundle, largest first: where to look when one grows.
//
//   npm run build && node scripts/bundle-size.mjs [--inputs]
import { createRequire } from 'node:module';

const { measureBundles } = createRequire(import.meta.url)('./measure-bundles.cjs');

const showInputs = process.argv.includes('--inputs');
const measured = await measureBundles();

const rows = [
  ['bundle', 'minified', 'gzipped', 'budget', 'goal'],
  ...measured.map(({ entry, minified, gzipped }) => [entry.title, minified, gzipped, entry.budget, entry.goal].map(String)),
];
const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
for (const row of rows)
  console.log(row.map((cell, column) => (column === 0 ? cell.padEnd(widths[0]) : cell.padStart(widths[column]))).join('  '));

if (showInputs) {
  for (const { entry, inputs } of measured) {
    console.log(`\n${entry.title}: minified bytes per file`);
    for (const { path, bytes } of inputs) console.log(`${String(bytes).padStart(8)}  ${path}`);
  }
}
