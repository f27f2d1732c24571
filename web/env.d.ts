/// <reference types="vite/client" />
// Shared ambient types of the browser apps under web/ (Vite client: import.meta.env, asset imports).
