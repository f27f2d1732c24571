import { defineConfig } from 'vite';
import { appConfig } from '../shared/vite-app';

// The manager's dashboard: built into dist/web/manager (scripts/build-web.mjs) and served by
// `svc-chat manager serve`; assets get content hashes, so the server caches them for a year.
export default defineConfig(appConfig());
