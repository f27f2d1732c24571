import { defineConfig } from 'vite';
import { appConfig } from '../shared/vite-app';

// The chat page. `node scripts/build-web.mjs chat` builds it into dist/web/chat,
// which `svc-chat serve` serves at `/` (src/chat/routes/web-routes.ts). The file
// names are fixed (one script, one stylesheet), so the server's list of public
// paths is fixed too; they are revalidated on every load.
// `npx vite web/chat` serves it for development against a chat server on 3344.
export default defineConfig(
  appConfig({
    server: 'http://127.0.0.1:3344',
    build: {
      chunkSizeWarningLimit: 2000,
      rollupOptions: { output: { entryFileNames: 'assets/chat.js', assetFileNames: 'assets/chat[extname]' } },
    },
  }),
);
