import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * The path, relative to `root`, of the regular file that `relative` names, when that file really
 * lies inside `root` once every symbolic link is resolved; undefined otherwise (missing, a folder,
 * or a link leading out). @fastify/static (send) follows links wherever they point, so the routes
 * that serve files from disk ask this first. The folders served are written by Emporium alone.
 */
export async function fileInside(root: string, relative: string): Promise<string | undefined> {
  try {
    const [realRoot, realFile] = await Promise.all([
      fs.realpath(root),
      fs.realpath(path.join(root, relative)),
    ]);
    if (!realFile.startsWith(realRoot + path.sep)) return undefined;
    if (!(await fs.stat(realFile)).isFile()) return undefined;
    return path.relative(realRoot, realFile);
  } catch {
    return undefined;
  }
}
