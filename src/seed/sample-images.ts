import type { MediaStorage } from '../modules/media/index.js';
import { mediaKeyFor } from '../modules/media/index.js';

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A product picture drawn locally (no network): a coloured square with the product's name, encoded
 * as WebP and stored content-addressed like a downloaded image. Returns its public URL.
 */
export async function storeSampleImage(storage: MediaStorage, label: string, hue: number): Promise<string> {
  const size = 480;
  const svg = `<svg width="${size}" height="${size}" xmlns="http://www.w3.org/2000/svg">
    <rect width="100%" height="100%" fill="hsl(${hue}, 55%, 62%)"/>
    <circle cx="${size / 2}" cy="${size / 2 - 30}" r="110" fill="hsl(${(hue + 40) % 360}, 60%, 45%)"/>
    <text x="50%" y="${size - 70}" font-family="sans-serif" font-size="34" fill="#fff" text-anchor="middle">${escapeXml(label)}</text>
  </svg>`;
  const { default: sharp } = await import('sharp');
  const webp = await sharp(Buffer.from(svg)).webp({ quality: 80 }).toBuffer();
  const key = mediaKeyFor(webp);
  await storage.put(key, webp, 'image/webp');
  return storage.publicUrl(key);
}
