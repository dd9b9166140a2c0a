import { RequestLoad } from './request-load';

describe('RequestLoad', () => {
  it('counts requests until they settle, failed ones too, and tells its listeners when none is left', async () => {
    const load = new RequestLoad();
    let idle = 0;
    const unsubscribe = load.onIdle(() => idle++);
    expect(load.allowance(8)).toBe(8);
    let finishFirst!: () => void;
    const first = load.around(() => new Promise<void>((r) => (finishFirst = r)));
    const second = load.around(() => Promise.reject(new Error('refused')));
    expect(load.busy).toBe(true);
    expect(load.allowance(8)).toBe(1);
    await expect(second).rejects.toThrow('refused');
    expect(idle).toBe(0);
    expect(load.busy).toBe(true);
    finishFirst();
    await first;
    expect(idle).toBe(1);
    expect(load.busy).toBe(false);
    expect(load.allowance(8)).toBe(8);
    unsubscribe();
    await load.around(async () => undefined);
    expect(idle).toBe(1);
  });
});
