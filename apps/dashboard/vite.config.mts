import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// `vite dev` (run in apps/dashboard) proxies the API to a local orchestrator (ORCHESTRATOR_URL, default port 3000).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
  server: { proxy: { '/api': process.env.ORCHESTRATOR_URL ?? 'http://127.0.0.1:3000' } },
});
