import { treasuryConfig, TreasuryConfigError } from './config';
import { decideSweep, splitSweep } from './policy';

const cfg = treasuryConfig({}).networks.POLYGON;
const now = new Date('2026-11-29T00:00:00Z');
const hoursAgo = (h: number): Date => new Date(now.getTime() - h * 3_600_000);

describe('sweep policy', () => {
  it('sweeps final balances at the minimum, never while a deposit is confirming', () => {
    expect(decideSweep({ balance: '1', confirming: false, oldestAt: now }, cfg, 168, now)).toEqual({ sweep: true, reason: 'min_reached' });
    expect(decideSweep({ balance: '500', confirming: true, oldestAt: now }, cfg, 168, now)).toEqual({ sweep: false, reason: 'not_final' });
    expect(decideSweep({ balance: '0.99', confirming: false, oldestAt: hoursAgo(167) }, cfg, 168, now)).toEqual({ sweep: false, reason: 'below_min' });
    expect(decideSweep({ balance: '0', confirming: false, oldestAt: null }, cfg, 168, now, true)).toEqual({ sweep: false, reason: 'empty' });
  });

  it('sweeps below the minimum once held above the fee for SWEEP_MAX_AGE_HOURS, or on demand', () => {
    expect(decideSweep({ balance: '0.5', confirming: false, oldestAt: hoursAgo(168) }, cfg, 168, now)).toEqual({ sweep: true, reason: 'aged' });
    expect(decideSweep({ balance: '0.001', confirming: false, oldestAt: hoursAgo(500) }, cfg, 168, now)).toEqual({ sweep: false, reason: 'below_min' }); // below a typical fee
    expect(decideSweep({ balance: '0.001', confirming: false, oldestAt: now }, cfg, 168, now, true)).toEqual({ sweep: true, reason: 'manual' });
  });

  it('sends to cold only what exceeds HOT_MAX', () => {
    const capped = treasuryConfig({ POLYGON_HOT_MAX: '100', POLYGON_COLD_ADDRESS: '0x000000000000000000000000000000000000dEaD' }).networks.POLYGON;
    expect(splitSweep('30', '50', cfg)).toEqual({ target: 'hot', amount: '30' });
    expect(splitSweep('30', '50', capped)).toEqual({ target: 'hot', amount: '30' });
    expect(splitSweep('80', '50', capped)).toEqual({ target: 'hot', amount: '50' });
    expect(splitSweep('80', '100', capped)).toEqual({ target: 'cold', amount: '80' });
  });

  it('reads its variables, with defaults keeping a sweep fee near 2%', () => {
    const c = treasuryConfig({ TRC20_SWEEP: 'off', BEP20_SWEEP_MIN: '5', SWEEP_MAX_AGE_HOURS: '24' });
    expect(c.networks.TRC20.enabled).toBe(false);
    expect(c.networks.BEP20.sweepMin).toBe('5');
    expect(c.maxAgeHours).toBe(24);
    for (const n of Object.values(treasuryConfig({}).networks)) expect(Number(n.typicalFee) / Number(n.sweepMin)).toBeLessThanOrEqual(0.02);
    expect(() => treasuryConfig({ POLYGON_HOT_MAX: '10' })).toThrow(TreasuryConfigError);
    expect(() => treasuryConfig({ POLYGON_SWEEP: 'maybe' })).toThrow(TreasuryConfigError);
    expect(() => treasuryConfig({ POLYGON_SWEEP_MIN: '-1' })).toThrow(TreasuryConfigError);
  });
});
