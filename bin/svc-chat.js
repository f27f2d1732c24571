#!/usr/bin/env node
// Runs the built program (npm ci builds it through the `prepare` script).
import('../dist/bundle/svc-chat.js').catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/bundle/svc-chat.js')) {
    console.error('svc-chat is not built yet: run `npm run build` (npm ci does it for you).');
    process.exit(2);
  }
  throw error;
});
