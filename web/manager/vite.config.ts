import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The manager's dashboard: built into dist/web/manager (scripts/build-web.mjs) and served by
// `svc-chat manager serve`; assets get content hashes, so the server caches them for a year.
export default defineConfig({
  plugins: [react()],
  base: '/',
  build: { assetsDir: 'assets', sourcemap: false },
});
