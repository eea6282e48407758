/** What an image's first bytes say it is: its type (by magic bytes, never by the name or the client's Content-Type) and size. */
export interface ImageInfo {
  mime: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  extension: string;
  width: number;
  height: number;
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function png(b: Buffer): ImageInfo | null {
  if (b.length < 24 || !b.subarray(0, 8).equals(PNG) || b.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { mime: 'image/png', extension: 'png', width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

function gif(b: Buffer): ImageInfo | null {
  const sig = b.toString('latin1', 0, 6);
  if (b.length < 10 || (sig !== 'GIF87a' && sig !== 'GIF89a')) return null;
  return { mime: 'image/gif', extension: 'gif', width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
}

/** JPEG: the frame header (SOF0-SOF15 but DHT, JPG and DAC) after the segments before it. */
function jpeg(b: Buffer): ImageInfo | null {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return null;
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1];
    if (marker === 0xff) {
      i++;
      continue;
    }
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { mime: 'image/jpeg', extension: 'jpg', height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    }
    if (marker === 0xd9 || marker === 0xda) return null;
    i += 2 + b.readUInt16BE(i + 2);
  }
  return null;
}

/** WebP: lossy (VP8), lossless (VP8L) or extended (VP8X) headers. */
function webp(b: Buffer): ImageInfo | null {
  if (b.length < 30 || b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WEBP') return null;
  const chunk = b.toString('latin1', 12, 16);
  const info = (width: number, height: number): ImageInfo => ({ mime: 'image/webp', extension: 'webp', width, height });
  if (chunk === 'VP8 ' && b[23] === 0x9d && b[24] === 0x01 && b[25] === 0x2a) return info(b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff);
  if (chunk === 'VP8L' && b[20] === 0x2f) {
    const bits = b.readUInt32LE(21);
    return info((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1);
  }
  if (chunk === 'VP8X') return info(b.readUIntLE(24, 3) + 1, b.readUIntLE(27, 3) + 1);
  return null;
}

/** The image's type and size, or null when the bytes are none of PNG, JPEG, GIF or WebP (or have no size). */
export function imageInfo(data: Buffer): ImageInfo | null {
  const info = png(data) ?? gif(data) ?? jpeg(data) ?? webp(data);
  return info && info.width > 0 && info.height > 0 ? info : null;
}
