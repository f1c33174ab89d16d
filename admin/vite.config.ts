import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The merchant dashboard, served by the Emporium server at /admin from admin/dist, and beside it in
 * the same build the operator console (operator.html, served at /operator): they share React, the
 * components and the styles, so the second entry adds only its own pages.
 * `npm install` builds it (the root package's `prepare` script); `npm run build:admin` rebuilds it.
 * `npx vite --config admin/vite.config.ts` serves it with hot reload, proxying the API to PORT 3000.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/admin/',
  plugins: [react()],
  logLevel: 'warn',
  build: {
    outDir: path.join(import.meta.dirname, 'dist'),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    chunkSizeWarningLimit: 600,
    rollupOptions: {
      input: {
        index: path.join(import.meta.dirname, 'index.html'),
        operator: path.join(import.meta.dirname, 'operator.html'),
      },
    },
  },
  server: {
    proxy: {
      '/api': `http://127.0.0.1:${process.env.PORT ?? 3000}`,
      '/media': `http://127.0.0.1:${process.env.PORT ?? 3000}`,
    },
  },
});
