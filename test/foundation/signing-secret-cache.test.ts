import { SigningSecretCache } from '../../src/grpc/signing-secret-cache';

type Secret = { merchantId: string; secret: string };

/** A load whose answers the test releases by hand, to order a lookup around a rotation. */
function controlledLoad(): { load: (apiKey: string) => Promise<Secret | null>; calls: number; release: (v: Secret | null) => void } {
  const pending: ((v: Secret | null) => void)[] = [];
  const ctl = {
    calls: 0,
    load: (): Promise<Secret | null> => {
      ctl.calls++;
      return new Promise((resolve) => pending.push(resolve));
    },
    release: (v: Secret | null) => pending.shift()!(v),
  };
  return ctl;
}

const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('SigningSecretCache', () => {
  it('caches a found secret for the TTL', async () => {
    const ctl = controlledLoad();
    const cache = new SigningSecretCache(ctl.load, 60_000);
    const first = cache.signingSecret('pk_a');
    await flush();
    ctl.release({ merchantId: 'm', secret: 's1' });
    expect(await first).toEqual({ merchantId: 'm', secret: 's1' });
    expect(await cache.signingSecret('pk_a')).toEqual({ merchantId: 'm', secret: 's1' });
    expect(ctl.calls).toBe(1);
  });

  it('calls that miss at the same time share one lookup', async () => {
    const ctl = controlledLoad();
    const cache = new SigningSecretCache(ctl.load, 60_000);
    const many = Array.from({ length: 20 }, () => cache.signingSecret('pk_a'));
    await flush();
    expect(ctl.calls).toBe(1);
    ctl.release({ merchantId: 'm', secret: 's1' });
    expect(new Set((await Promise.all(many)).map((v) => v?.secret))).toEqual(new Set(['s1']));
    // An unknown key is not cached, but concurrent misses still share its lookup.
    const unknown = [cache.signingSecret('pk_x'), cache.signingSecret('pk_x')];
    await flush();
    expect(ctl.calls).toBe(2);
    ctl.release(null);
    expect(await Promise.all(unknown)).toEqual([null, null]);
  });

  it('a call after forget() does not join the lookup that started before it', async () => {
    const ctl = controlledLoad();
    const cache = new SigningSecretCache(ctl.load, 60_000);
    const before = cache.signingSecret('pk_a');
    await flush();
    cache.forget('pk_a');
    const after = cache.signingSecret('pk_a');
    await flush();
    expect(ctl.calls).toBe(2);
    ctl.release({ merchantId: 'm', secret: 'old' });
    ctl.release({ merchantId: 'm', secret: 'new' });
    expect([(await before)?.secret, (await after)?.secret]).toEqual(['old', 'new']);
    expect((await cache.signingSecret('pk_a'))?.secret).toBe('new');
  });

  it('a lookup that started before forget() does not store its old secret', async () => {
    const ctl = controlledLoad();
    const cache = new SigningSecretCache(ctl.load, 60_000);
    const before = cache.signingSecret('pk_a');
    await flush();
    // The rotation commits and forgets the key while the lookup is still reading the old row.
    cache.forget('pk_a');
    ctl.release({ merchantId: 'm', secret: 'old' });
    expect((await before)?.secret).toBe('old');
    // The next lookup reads again and sees the new secret, not the old one from the cache.
    const after = cache.signingSecret('pk_a');
    await flush();
    expect(ctl.calls).toBe(2);
    ctl.release({ merchantId: 'm', secret: 'new' });
    expect((await after)?.secret).toBe('new');
    expect((await cache.signingSecret('pk_a'))?.secret).toBe('new');
    expect(ctl.calls).toBe(2);
  });

  it('a forget() of another key does not stop a lookup from being cached; unknown keys are never cached', async () => {
    const ctl = controlledLoad();
    const cache = new SigningSecretCache(ctl.load, 60_000);
    const a = cache.signingSecret('pk_a');
    await flush();
    cache.forget('pk_b');
    ctl.release({ merchantId: 'm', secret: 'sa' });
    await a;
    expect((await cache.signingSecret('pk_a'))?.secret).toBe('sa');
    expect(ctl.calls).toBe(1);
    const unknown = cache.signingSecret('pk_x');
    await flush();
    ctl.release(null);
    expect(await unknown).toBeNull();
    const again = cache.signingSecret('pk_x');
    await flush();
    expect(ctl.calls).toBe(3);
    ctl.release(null);
    await again;
  });
});
