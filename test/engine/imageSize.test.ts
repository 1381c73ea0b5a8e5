import { test } from 'node:test';
import assert from 'node:assert/strict';
import { imageInfo } from '../../src/engine/imageSize.ts';
import { gifBytes, pngBytes } from '../helpers/images.ts';

function jpegBytes(width: number, height: number, opts: { app0?: boolean; progressive?: boolean } = {}): Buffer {
  const parts: Buffer[] = [Buffer.from([0xff, 0xd8])];
  if (opts.app0 !== false) {
    // APP0 JFIF segment (length 16) before the frame header
    parts.push(Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]));
    // a DHT segment (C4 is not a frame header even though it is in the C0-CF range)
    parts.push(Buffer.from([0xff, 0xc4, 0x00, 0x04, 0x00, 0x00]));
  }
  const sof = Buffer.from([0xff, opts.progressive ? 0xc2 : 0xc0, 0x00, 0x11, 0x08, 0, 0, 0, 0, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  parts.push(sof, Buffer.from([0xff, 0xda, 0x00, 0x02, 0xff, 0xd9]));
  return Buffer.concat(parts);
}

function bmpBytes(width: number, height: number, dib = 40): Buffer {
  const b = Buffer.alloc(14 + dib);
  b.write('BM', 0, 'ascii');
  b.writeUInt32LE(b.length, 2);
  b.writeUInt32LE(14 + dib, 10);
  b.writeUInt32LE(dib, 14);
  if (dib === 12) {
    b.writeUInt16LE(width, 18);
    b.writeUInt16LE(height, 20);
  } else {
    b.writeInt32LE(width, 18);
    b.writeInt32LE(height, 22);
  }
  return b;
}

function riff(chunk: string, payload: Buffer): Buffer {
  const head = Buffer.alloc(20);
  head.write('RIFF', 0, 'ascii');
  head.writeUInt32LE(12 + payload.length, 4);
  head.write('WEBP', 8, 'ascii');
  head.write(chunk, 12, 'ascii');
  head.writeUInt32LE(payload.length, 16);
  return Buffer.concat([head, payload]);
}

function webpLossy(width: number, height: number): Buffer {
  const p = Buffer.alloc(10);
  p.set([0x9d, 0x01, 0x2a], 3);
  p.writeUInt16LE(width, 6);
  p.writeUInt16LE(height, 8);
  return riff('VP8 ', p);
}

function webpLossless(width: number, height: number): Buffer {
  const w = width - 1;
  const h = height - 1;
  const bits = w | (h << 14); // 14 bits each, then alpha and version bits (0)
  const p = Buffer.alloc(10);
  p[0] = 0x2f;
  p.writeUInt32LE(bits >>> 0, 1);
  return riff('VP8L', p);
}

function webpExtended(width: number, height: number): Buffer {
  const p = Buffer.alloc(10);
  p.writeUIntLE(width - 1, 4, 3);
  p.writeUIntLE(height - 1, 7, 3);
  return riff('VP8X', p);
}

test('PNG: size from IHDR, media type image/png', () => {
  assert.deepEqual(imageInfo(pngBytes(3, 2)), { format: 'png', mimeType: 'image/png', width: 3, height: 2 });
  assert.deepEqual(imageInfo(pngBytes(300, 1)), { format: 'png', mimeType: 'image/png', width: 300, height: 1 });
});

test('GIF 87a and 89a: logical screen size', () => {
  assert.deepEqual(imageInfo(gifBytes(640, 480)), { format: 'gif', mimeType: 'image/gif', width: 640, height: 480 });
  const g87 = gifBytes(5, 7);
  g87.write('GIF87a', 0, 'ascii');
  assert.equal(imageInfo(g87)?.width, 5);
});

test('JPEG: size from the first frame header, skipping other segments (baseline and progressive)', () => {
  assert.deepEqual(imageInfo(jpegBytes(1024, 768)), { format: 'jpeg', mimeType: 'image/jpeg', width: 1024, height: 768 });
  assert.deepEqual(imageInfo(jpegBytes(17, 4000, { progressive: true, app0: false })), { format: 'jpeg', mimeType: 'image/jpeg', width: 17, height: 4000 });
});

test('BMP: Windows headers (top-down negative height) and the OS/2 core header', () => {
  assert.deepEqual(imageInfo(bmpBytes(12, 34)), { format: 'bmp', mimeType: 'image/bmp', width: 12, height: 34 });
  assert.deepEqual(imageInfo(bmpBytes(12, -34)), { format: 'bmp', mimeType: 'image/bmp', width: 12, height: 34 });
  assert.deepEqual(imageInfo(bmpBytes(9, 8, 12)), { format: 'bmp', mimeType: 'image/bmp', width: 9, height: 8 });
});

test('WebP: lossy (VP8), lossless (VP8L) and extended (VP8X)', () => {
  assert.deepEqual(imageInfo(webpLossy(320, 200)), { format: 'webp', mimeType: 'image/webp', width: 320, height: 200 });
  assert.deepEqual(imageInfo(webpLossless(4000, 3)), { format: 'webp', mimeType: 'image/webp', width: 4000, height: 3 });
  assert.deepEqual(imageInfo(webpExtended(70000, 2)), { format: 'webp', mimeType: 'image/webp', width: 70000, height: 2 });
});

test('anything else is not an image: text, empty, truncated headers, zero sizes, a JPEG without a frame header', () => {
  assert.equal(imageInfo(Buffer.from('hello, this is not an image at all')), null);
  assert.equal(imageInfo(Buffer.alloc(0)), null);
  assert.equal(imageInfo(pngBytes(3, 2).subarray(0, 20)), null);
  assert.equal(imageInfo(gifBytes(3, 2).subarray(0, 8)), null);
  assert.equal(imageInfo(gifBytes(0, 2)), null);
  assert.equal(imageInfo(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x02, 0xff, 0xd9])), null);
  assert.equal(imageInfo(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="3" height="2"/>')), null);
  assert.equal(imageInfo(Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')), null);
});
