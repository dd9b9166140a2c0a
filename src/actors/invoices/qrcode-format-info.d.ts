// The format-information encoder inside `qrcode` (no types of its own).
declare module 'qrcode/lib/core/format-info' {
  export function getEncodedBits(errorCorrectionLevel: unknown, mask: number): number;
}
