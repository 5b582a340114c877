import { defineConfig } from 'vite';

// Built by `npm run console:build` (vite build console) into console/dist, which the service
// serves under /console/ (src/http/routes/console).
export default defineConfig({
  base: '/console/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    // No CDN and no inline scripts: the service's Content-Security-Policy allows only this origin's files.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 600,
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // `npx vite console` during development: the API of a service started with `npm start`.
  server: { proxy: { '/v1': 'http://127.0.0.1:8080', '/.well-known': 'http://127.0.0.1:8080' } },
});
