import { coresFor, cpuBudget, describeBudget, serviceBudget, sqlBaselineBudget } from './cpu-budget';

describe('cpuBudget (what the bench reports as the CPU limit of a scenario)', () => {
  const budget = cpuBudget(
    [
      { name: 'daemon + gateway', us: 1200 },
      { name: 'PostgreSQL', us: 400 },
      { name: 'load generator', us: 400 },
    ],
    2,
  );

  it('adds the shares of every process and bounds the rate by the cores', () => {
    expect(budget.totalUs).toBe(2000);
    // 2 cores × 1,000,000 µs/s ÷ 2,000 µs per unit.
    expect(budget.ceilingPerSecond).toBe(1000);
  });

  it('says how many cores a rate takes at that cost', () => {
    expect(coresFor(budget, 2000)).toBe(4);
    expect(coresFor(budget, 500)).toBe(1);
  });

  it('describes the total and each share', () => {
    expect(describeBudget(budget)).toBe('2,000 µs (daemon + gateway 1,200, PostgreSQL 400, load generator 400)');
  });

  it('has no ceiling when nothing was spent', () => {
    expect(cpuBudget([], 2).ceilingPerSecond).toBe(Infinity);
  });

  it("builds a scenario's budgets from the medians of its runs", () => {
    const service = serviceBudget({ server: [900, 1300, 1000], postgres: [300, 200, 400], load: [80, 90, 70] });
    expect(service.shares).toEqual([
      { name: 'daemon + gateway', us: 1000 },
      { name: 'PostgreSQL', us: 300 },
      { name: 'load generator', us: 80 },
    ]);
    expect(sqlBaselineBudget({ backends: [400, 500, 450], client: [60, 70, 65] }).totalUs).toBe(515);
  });
});
