import { backoffMs, isRetryableStatus, retrySettings, serverWaitMs } from '../../src/request/retryDelay';

const NOW = Date.UTC(2026, 11, 6, 12, 0, 0);
const settings = retrySettings({ now: () => NOW, random: () => 0 }, 'spec');
const headers = (record: Record<string, string>): Headers => new Headers(record);

describe('the retry decision', () => {
  it.each([
    [408, true],
    [409, true],
    [429, true],
    [500, true],
    [503, true],
    [529, true],
    [400, false],
    [401, false],
    [404, false],
    [422, false],
  ])('retries status %d: %s', (status, retry) => {
    expect(isRetryableStatus(status, headers({}))).toBe(retry);
  });

  it('obeys x-should-retry over the status', () => {
    expect(isRetryableStatus(400, headers({ 'x-should-retry': 'true' }))).toBe(true);
    expect(isRetryableStatus(503, headers({ 'x-should-retry': 'false' }))).toBe(false);
    expect(isRetryableStatus(503, headers({ 'x-should-retry': 'maybe' }))).toBe(true);
  });

  it.each([
    [{ 'retry-after-ms': '1500' }, 1500],
    [{ 'retry-after-ms': '12.5' }, 12.5],
    [{ 'retry-after-ms': '60000' }, 60000],
    [{ 'retry-after-ms': '60001' }, undefined],
    [{ 'retry-after-ms': '0' }, undefined],
    [{ 'retry-after-ms': '-5' }, undefined],
    [{ 'retry-after-ms': 'soon', 'retry-after': '2' }, 2000],
    [{ 'retry-after-ms': '100', 'retry-after': '2' }, 100],
    [{ 'retry-after': '60' }, 60000],
    [{ 'retry-after': '61' }, undefined],
    [{ 'retry-after': '0' }, undefined],
    [{ 'retry-after': 'Sun, 06 Dec 2026 12:00:30 GMT' }, 30000],
    [{ 'retry-after': 'Sun, 06 Dec 2026 11:59:30 GMT' }, undefined],
    [{ 'retry-after': 'Sun, 06 Dec 2026 12:05:00 GMT' }, undefined],
    [{ 'retry-after': 'whenever' }, undefined],
    [{}, undefined],
  ])('reads the server wait of %j as %s ms', (record, wait) => {
    expect(serverWaitMs(headers(record), settings)).toBe(wait);
  });

  it('backs off 0.5 s doubling to 8 s, less up to a quarter at random', () => {
    expect([0, 1, 2, 3, 4, 5].map((retry) => backoffMs(retry, settings))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    const nearlyOne = retrySettings({ random: () => 0.999 }, 'spec');
    expect(backoffMs(0, nearlyOne)).toBeCloseTo(375.125, 6);
    const broken = retrySettings({ random: () => 7 }, 'spec');
    expect(backoffMs(1, broken)).toBe(1000);
  });

  it('refuses options that are not counts', () => {
    expect(() => retrySettings({ maxRetries: -1 }, 'retryingFetch')).toThrow(
      'retryingFetch: maxRetries must be a finite number of zero or more, got -1',
    );
    expect(() => retrySettings({ maxDelayMs: Infinity }, 'retryRequest')).toThrow(TypeError);
  });
});
