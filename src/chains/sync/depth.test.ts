import { blockDepth } from './depth';

describe('blockDepth (the block families count)', () => {
  it('tip - height + 1, final at the finality depth; 0 above the tip', () => {
    expect(blockDepth(10, 12, 3)).toEqual({ confirmations: 3, final: true });
    expect(blockDepth(10, 11, 3)).toEqual({ confirmations: 2, final: false });
    expect(blockDepth(10, 9, 3)).toEqual({ confirmations: 0, final: false });
  });

  it('above what the chain holds irreversible (TRON: the solidified head): never final, held below the finality depth', () => {
    expect(blockDepth(10, 30, 20, 9)).toEqual({ confirmations: 19, final: false });
    expect(blockDepth(10, 15, 20, 9)).toEqual({ confirmations: 6, final: false });
    expect(blockDepth(10, 30, 20, 10)).toEqual({ confirmations: 21, final: true });
    expect(blockDepth(10, 30, 20, -1)).toEqual({ confirmations: 19, final: false });
  });
});
