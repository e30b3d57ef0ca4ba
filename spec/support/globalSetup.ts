import { buildIfStale } from './build';

/** Jest's global setup: the built package, fresh, before any worker starts (see `buildIfStale`). */
export default function globalSetup(): void {
  buildIfStale();
}
