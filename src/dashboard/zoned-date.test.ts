import { startOfDayIn } from './zoned-date';

describe('startOfDayIn', () => {
  it('is the instant a day starts in the zone, across DST changes, and refuses what is not a date', () => {
    expect(startOfDayIn('2026-03-10', 'UTC')!.toISOString()).toBe('2026-03-10T00:00:00.000Z');
    expect(startOfDayIn('2026-07-01', 'Europe/Madrid')!.toISOString()).toBe('2026-06-30T22:00:00.000Z');
    expect(startOfDayIn('2026-01-15', 'Europe/Madrid')!.toISOString()).toBe('2026-01-14T23:00:00.000Z');
    // The day DST starts in New York (2 a.m. jumps to 3 a.m.): the day still starts at midnight EST.
    expect(startOfDayIn('2026-03-08', 'America/New_York')!.toISOString()).toBe('2026-03-08T05:00:00.000Z');
    expect(startOfDayIn('2026-11-29', 'Asia/Kolkata')!.toISOString()).toBe('2026-11-28T18:30:00.000Z');
    expect(startOfDayIn('2026-02-30', 'UTC')).toBeNull();
    expect(startOfDayIn('yesterday', 'UTC')).toBeNull();
  });
});
