import fs from 'node:fs';
import path from 'node:path';

/** shop-assets/ of the repository: the client bundle Vite builds (`npm install`, `npm run build:shop`). */
export const SHOP_ASSETS_DIR = path.resolve(import.meta.dirname, '../../shop-assets');
/** Where the shop's built files are served. */
export const SHOP_ASSETS_PATH = '/shop-assets/';

/** The files one client entry needs: its script, the chunks it imports, its stylesheets. */
export interface EntryFiles {
  script: string;
  preload: string[];
  styles: string[];
}

export interface ShopAssets {
  /** The files of an entry of src/shop/client (`shop`, `product`, `checkout`…), as URLs. */
  entry(name: string): EntryFiles | undefined;
}

interface ManifestChunk {
  file: string;
  css?: string[];
  imports?: string[];
  isEntry?: boolean;
  name?: string;
}

/**
 * Vite's manifest, read once at start: page renders only look names up. Without a build (a
 * checkout that never ran `npm install`'s prepare step) pages render without styles or scripts,
 * still usable, and the server says so once.
 */
export function loadShopAssets(
  dir = SHOP_ASSETS_DIR,
  warn: (message: string) => void = () => {},
): ShopAssets {
  let manifest: Record<string, ManifestChunk> = {};
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dir, '.vite/manifest.json'), 'utf8'));
  } catch {
    warn('The shop client bundle is not built (shop-assets/): run `npm run build:shop`');
  }
  const byName = new Map<string, EntryFiles>();
  const url = (file: string) => `${SHOP_ASSETS_PATH}${file}`;
  for (const [key, chunk] of Object.entries(manifest)) {
    if (!chunk.isEntry) continue;
    const preload = new Set<string>();
    const styles = new Set(chunk.css ?? []);
    const visit = (imports: string[] = []) => {
      for (const imported of imports) {
        const dependency = manifest[imported];
        if (!dependency || preload.has(dependency.file)) continue;
        preload.add(dependency.file);
        for (const css of dependency.css ?? []) styles.add(css);
        visit(dependency.imports);
      }
    };
    visit(chunk.imports);
    byName.set(path.basename(key).replace(/\.(ts|css)$/, ''), {
      script: url(chunk.file),
      preload: [...preload].map(url),
      styles: [...styles].map(url),
    });
  }
  return { entry: (name) => byName.get(name) };
}
