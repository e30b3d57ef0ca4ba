import { Observable, OperatorFunction, from } from 'rxjs';

/** The outcome of running a finite source to its end, synchronously or not. */
export interface Outcome<T> {
  values: T[];
  error?: unknown;
}

/** Runs `inputs` through `operator` and collects values and the error, if any. */
export function run<I, O>(inputs: readonly I[], operator: OperatorFunction<I, O>): Promise<Outcome<O>> {
  return collect(from(inputs).pipe(operator));
}

export function collect<T>(source: Observable<T>): Promise<Outcome<T>> {
  return new Promise((resolve) => {
    const values: T[] = [];
    source.subscribe({
      next: (value) => values.push(value),
      error: (error: unknown) => resolve({ values, error }),
      complete: () => resolve({ values }),
    });
  });
}

/** Like {@link run} for synchronous sources, without a promise. */
export function runSync<I, O>(inputs: readonly I[], operator: OperatorFunction<I, O>): Outcome<O> {
  return collectSync(from(inputs).pipe(operator));
}

/** Like {@link collect} for a source that ends synchronously, without a promise. */
export function collectSync<T>(source: Observable<T>): Outcome<T> {
  const values: T[] = [];
  let error: unknown;
  let ended = false;
  source.subscribe({
    next: (value) => values.push(value),
    error: (caught: unknown) => {
      error = caught;
      ended = true;
    },
    complete: () => {
      ended = true;
    },
  });
  if (!ended) throw new Error('collectSync: the source did not end synchronously');
  return error === undefined ? { values } : { values, error };
}
