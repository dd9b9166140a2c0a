/**
 * A response serializer that encodes each response OBJECT once: a handler that answers several
 * calls with the same object (an open invoice's message, kept between its commits) sends the same
 * bytes without encoding them again. Invariant: a response object is never mutated after it was
 * returned (the same holds for the kept rows it is made from, OpenInvoiceReads). Weakly held: the
 * bytes go when the object does.
 */
export function serializeOnce<T extends object>(serialize: (value: T) => Buffer): (value: T) => Buffer {
  const encoded = new WeakMap<T, Buffer>();
  return (value: T): Buffer => {
    let bytes = encoded.get(value);
    if (bytes === undefined) {
      bytes = serialize(value);
      encoded.set(value, bytes);
    }
    return bytes;
  };
}
