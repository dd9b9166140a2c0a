/**
 * EIP-55: the hex digits of an address whose nibble in keccak-256(lowercase hex) is 8 or more are
 * upper case. What viem's getAddress returns, with the keccak passed in: the deposit-address check
 * (EvmCodec.crossCheckDepositAddresses) uses the keccak add-on's, so that no step of it is viem's
 * or noble's (chains/keys/secp256k1-addon.ts).
 */
export function eip55Address(accountId: Uint8Array, keccak: (data: Uint8Array) => Uint8Array): string {
  if (accountId.length !== 20) throw new RangeError(`an EVM account id is 20 bytes, got ${accountId.length}`);
  const lower = Buffer.from(accountId).toString('hex');
  const hash = keccak(Buffer.from(lower, 'latin1'));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const nibble = i % 2 === 0 ? hash[i >> 1]! >> 4 : hash[i >> 1]! & 0x0f;
    out += nibble >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  }
  return out;
}
