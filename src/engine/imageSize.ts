/**
 * Recognises an image by its header and reads its pixel size: PNG, GIF, JPEG, BMP and WebP,
 * the formats a cell image may have. Only the header is read (no decoding), so a file that
 * is truncated after its header still counts; anything else is not an image (null).
 *
 * The media type returned is the one the bytes show, never the one a client claimed, so an
 * image served back is labelled by what it is.
 */
export interface ImageInfo {
  format: 'png' | 'gif' | 'jpeg' | 'bmp' | 'webp';
  mimeType: string;
  width: number;
  height: number;
}

function be16(b: Uint8Array, i: number): number {
  return (b[i]! << 8) | b[i + 1]!;
}

function le16(b: Uint8Array, i: number): number {
  return b[i]! | (b[i + 1]! << 8);
}

function le24(b: Uint8Array, i: number): number {
  return b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16);
}

function be32(b: Uint8Array, i: number): number {
  return ((b[i]! << 24) >>> 0) + (b[i + 1]! << 16) + (b[i + 2]! << 8) + b[i + 3]!;
}

function le32s(b: Uint8Array, i: number): number {
  return b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24);
}

function ascii(b: Uint8Array, i: number, s: string): boolean {
  if (b.length < i + s.length) return false;
  for (let k = 0; k < s.length; k++) if (b[i + k] !== s.charCodeAt(k)) return false;
  return true;
}

function sized(format: ImageInfo['format'], mimeType: string, width: number, height: number): ImageInfo | null {
  return width > 0 && height > 0 ? { format, mimeType, width, height } : null;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function png(b: Uint8Array): ImageInfo | null {
  // signature, then the IHDR chunk first: length (4), "IHDR", width (4), height (4)
  if (b.length < 24 || !PNG_SIGNATURE.every((x, i) => b[i] === x) || !ascii(b, 12, 'IHDR')) return null;
  return sized('png', 'image/png', be32(b, 16), be32(b, 20));
}

function gif(b: Uint8Array): ImageInfo | null {
  if (b.length < 10 || !(ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a'))) return null;
  return sized('gif', 'image/gif', le16(b, 6), le16(b, 8));
}

function jpeg(b: Uint8Array): ImageInfo | null {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return null;
  let p = 2;
  while (p + 3 < b.length) {
    if (b[p] !== 0xff) return null;
    const marker = b[p + 1]!;
    if (marker === 0xff) {
      p++; // fill byte
      continue;
    }
    // markers without a length: TEM, RST0-7, SOI
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      p += 2;
      continue;
    }
    // end of image or start of scan before any frame header: no size to be found
    if (marker === 0xd9 || marker === 0xda) return null;
    const len = be16(b, p + 2);
    if (len < 2) return null;
    // start of frame (SOF0-15 except DHT C4, JPG C8, DAC CC): precision, height, width
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (p + 9 > b.length) return null;
      return sized('jpeg', 'image/jpeg', be16(b, p + 7), be16(b, p + 5));
    }
    p += 2 + len;
  }
  return null;
}

function bmp(b: Uint8Array): ImageInfo | null {
  if (b.length < 26 || !ascii(b, 0, 'BM')) return null;
  const dib = le32s(b, 14);
  // OS/2 1.x core header: 16-bit sizes; every later header: signed 32-bit (negative height = top-down)
  if (dib === 12) return sized('bmp', 'image/bmp', le16(b, 18), le16(b, 20));
  if (dib < 40) return null;
  return sized('bmp', 'image/bmp', Math.abs(le32s(b, 18)), Math.abs(le32s(b, 22)));
}

function webp(b: Uint8Array): ImageInfo | null {
  if (b.length < 30 || !ascii(b, 0, 'RIFF') || !ascii(b, 8, 'WEBP')) return null;
  if (ascii(b, 12, 'VP8X')) return sized('webp', 'image/webp', 1 + le24(b, 24), 1 + le24(b, 27));
  if (ascii(b, 12, 'VP8L')) {
    if (b[20] !== 0x2f) return null;
    const width = 1 + (((b[22]! & 0x3f) << 8) | b[21]!);
    const height = 1 + (((b[24]! & 0x0f) << 10) | (b[23]! << 2) | ((b[22]! & 0xc0) >> 6));
    return sized('webp', 'image/webp', width, height);
  }
  if (ascii(b, 12, 'VP8 ')) {
    // key frame start code 9d 01 2a, then 14-bit width and height
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return null;
    return sized('webp', 'image/webp', le16(b, 26) & 0x3fff, le16(b, 28) & 0x3fff);
  }
  return null;
}

/** The format and pixel size of an image, or null when the bytes are not one of the formats. */
export function imageInfo(bytes: Uint8Array): ImageInfo | null {
  return png(bytes) ?? gif(bytes) ?? jpeg(bytes) ?? bmp(bytes) ?? webp(bytes);
}
