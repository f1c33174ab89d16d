#!/usr/bin/env node
// `emporium` (npm run emporium, npm link, npx, the Docker image): the compiled CLI in dist/, which
// `npm install` / `npm ci` build. The TypeScript sources need the dev tools (`npm run dev`).
import fs from 'node:fs';
import module from 'node:module';

const compiled = new URL('../dist/cli.js', import.meta.url);
if (!fs.existsSync(compiled)) {
  process.stderr.write(
    'emporium: the server is not compiled (dist/cli.js is missing): run `npm install` (with dev dependencies) or `npm run build`\n',
  );
  process.exit(1);
}
// Compiled code kept between runs, as `npm start` does (src/main.ts says why).
module.enableCompileCache?.();
await import(compiled.href);
