import { defineConfig } from 'vite';
import { appConfig } from '../shared/vite-app';

// The studio's browser app. `node scripts/build-web.mjs studio` builds it into
// dist/web/studio, which the studio serves at `/` (src/studio/routes/web.ts).
// `npx vite web/studio` serves it for development against a studio on 3333.
export default defineConfig(appConfig({ server: 'http://127.0.0.1:3333', proxied: ['/api', '/generated'] }));
