import { serializeOnce } from './serialize-once';

describe('serializeOnce', () => {
  it('encodes each object once and never answers one object with another one bytes', () => {
    let calls = 0;
    const serialize = serializeOnce((v: { n: number }) => {
      calls++;
      return Buffer.from(JSON.stringify(v));
    });
    const a = { n: 1 };
    const b = { n: 1 }; // equal content, another object: encoded on its own
    expect(serialize(a).toString()).toBe('{"n":1}');
    expect(serialize(a)).toBe(serialize(a));
    expect(calls).toBe(1);
    expect(serialize(b).toString()).toBe('{"n":1}');
    expect(calls).toBe(2);
    const c = { n: 2 };
    expect(serialize(c).toString()).toBe('{"n":2}');
    expect(serialize(a).toString()).toBe('{"n":1}');
    expect(calls).toBe(3);
  });
});
