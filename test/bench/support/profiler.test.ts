import { samplingIntervalUs } from './profiler';

describe('BENCH_PROFILE_INTERVAL_US', () => {
  it('defaults to 200 µs when unset or empty', () => {
    expect(samplingIntervalUs(undefined)).toBe(200);
    expect(samplingIntervalUs('')).toBe(200);
  });

  it('takes a whole number of microseconds', () => {
    expect(samplingIntervalUs('1000')).toBe(1000);
  });

  it.each(['0', '-5', '1.5', 'abc', '1e3', ' 100'])('refuses %j with the variable named', (setting) => {
    expect(() => samplingIntervalUs(setting)).toThrow(/BENCH_PROFILE_INTERVAL_US must be a whole number of microseconds/);
  });
});
