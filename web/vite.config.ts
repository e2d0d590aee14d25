import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The web console (issue 9): built into web/dist, which `agent-runtime serve` serves at `/`
 * (src/server/console.ts). `npm run dev:web` proxies /v1 to a local `serve` on port 8080.
 */
const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    // Same-origin script files only: the server's Content-Security-Policy allows no inline script.
    modulePreload: { polyfill: false },
  },
  server: {
    proxy: {
      '/v1': {
        target: process.env.AGENT_RUNTIME_URL ?? 'http://127.0.0.1:8080',
        changeOrigin: true,
        // The dev page's origin (localhost:5173) is not the server's: a `serve` without tokens would
        // refuse its POSTs as cross-site. The page is same-origin with this proxy, so drop the header.
        configure: (proxy) => {
          proxy.on('proxyReq', (request) => request.removeHeader('origin'));
        },
      },
    },
  },
});
