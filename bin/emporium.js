#!/usr/bin/env node
// `emporium` on the PATH (npm link / npx): the TypeScript sources run through tsx, no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
