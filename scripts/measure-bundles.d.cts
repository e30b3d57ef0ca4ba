// The types of measure-bundles.cjs, for spec/bundleSize.spec.ts.

/** One bundle a user would make: the module they write, and the sizes it is held to. */
export interface BundleEntry {
  readonly name: string;
  readonly title: string;
  /** Gzipped bytes the spec allows. */
  readonly budget: number;
  /** Gzipped bytes the bundle should get down to. */
  readonly goal: number;
  /** The module, TypeScript. */
  readonly code: string;
}

/** The minified bytes one input file left in a bundle. */
export interface BundleInput {
  /** Relative to the checkout (`dist/esm/frames/SseParser.js`), or to node_modules (`rxjs/...`). */
  readonly path: string;
  readonly bytes: number;
}

export interface BundleSize {
  readonly entry: BundleEntry;
  readonly minified: number;
  readonly gzipped: number;
  /** Largest first. */
  readonly inputs: readonly BundleInput[];
}

export declare const BUNDLE_ENTRIES: readonly BundleEntry[];
export declare function measureBundle(entry: BundleEntry): Promise<BundleSize>;
export declare function measureBundles(): Promise<BundleSize[]>;
