// The synchronous SVG renderer inside `qrcode` (no types of its own).
declare module 'qrcode/lib/renderer/svg-tag' {
  import type { QRCode, QRCodeToStringOptions } from 'qrcode';
  const renderer: { render(qrData: QRCode, options?: QRCodeToStringOptions): string };
  export default renderer;
}
