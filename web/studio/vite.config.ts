import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The studio's browser app. `node scripts/build-web.mjs studio` builds it into
// dist/web/studio, which the studio serves at `/` (src/studio/routes/web.ts).
// `npx vite web/studio` serves it for development against a studio on 3333.
const studio = 'http://127.0.0.1:3333';

export default defineConfig({
  plugins: [react()],
  base: '/',
  build: {
    target: 'es2022',
    assetsDir: 'assets',
    // The page's CSP has no data: fonts or scripts: keep every asset a file.
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
  },
  server: {
    proxy: { '/api': studio, '/generated': studio },
  },
});
