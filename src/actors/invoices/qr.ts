import QRCode from 'qrcode';

/** SVG of a QR code for the payment link; error correction M keeps it scannable from a screen. */
export async function qrSvg(text: string): Promise<string> {
  return QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}
