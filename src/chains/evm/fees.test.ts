import { bumped, replacementFees } from './fees';

describe('fee bump', () => {
  it('adds at least 12.5% (rounded up) and at least 1 wei', () => {
    expect(bumped(800n)).toBe(900n);
    expect(bumped(801n)).toBe(902n);
    expect(bumped(0n)).toBe(1n);
  });

  it('never goes below the current suggestion, and the cap covers the tip', () => {
    const stuck = { type: 'eip1559', maxFeePerGas: 100n, maxPriorityFeePerGas: 10n } as const;
    expect(replacementFees(stuck, { type: 'eip1559', maxFeePerGas: 50n, maxPriorityFeePerGas: 1n })).toEqual({ type: 'eip1559', maxFeePerGas: 113n, maxPriorityFeePerGas: 12n });
    expect(replacementFees(stuck, { type: 'eip1559', maxFeePerGas: 500n, maxPriorityFeePerGas: 40n })).toEqual({ type: 'eip1559', maxFeePerGas: 500n, maxPriorityFeePerGas: 40n });
    expect(replacementFees({ type: 'legacy', gasPrice: 80n }, { type: 'legacy', gasPrice: 70n })).toEqual({ type: 'legacy', gasPrice: 90n });
  });
});
