// Runs on `npm ci` / `npm install` (the package's prepare script): builds the web console into
// console/dist so that `npm start` serves it. An install without dev dependencies (a production
// image built from an already-built tree) has no Vite: it says so instead of failing the install.
let vite;
try {
  vite = await import('vite');
} catch {
  console.warn('qrail: Vite is not installed (dev dependencies omitted); the console is not rebuilt. Build it with `npm run console:build` where it is.');
  process.exit(0);
}
await vite.build({ root: new URL('../console/', import.meta.url).pathname, logLevel: 'warn' });
