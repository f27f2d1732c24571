import react from '@vitejs/plugin-react';
import type { BuildOptions, UserConfig } from 'vite';

// What the three browser apps' builds share (each web/<app>/vite.config.ts adds
// its own): React, served at `/`, files under assets/, and no data: URLs, since
// the pages' CSP allows no data: fonts or scripts.

/** One app's Vite configuration: the shared build plus `build`, with `/api` (and more) proxied to `server` in development. */
export function appConfig(options: { build?: BuildOptions; server?: string; proxied?: readonly string[] } = {}): UserConfig {
  const { server, proxied = ['/api'] } = options;
  return {
    plugins: [react()],
    base: '/',
    build: { target: 'es2022', assetsDir: 'assets', assetsInlineLimit: 0, sourcemap: false, reportCompressedSize: false, ...options.build },
    ...(server ? { server: { proxy: Object.fromEntries(proxied.map((path) => [path, server])) } } : {}),
  };
}
