#!/usr/bin/env node
// `emporium` on the PATH (npm link / npx): the compiled server in dist/ (built by `npm ci`), or the
// TypeScript sources through tsx when dist/ has not been built.
import fs from 'node:fs';

const compiled = new URL('../dist/cli.js', import.meta.url);
if (fs.existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
