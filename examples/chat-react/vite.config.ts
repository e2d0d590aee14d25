import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The useChat example page (README.md). The dev server proxies `/v1` to an `agent-runtime serve`
 * (AGENT_RUNTIME_URL, default http://127.0.0.1:8080), so the page and the API share one origin.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  server: {
    proxy: {
      '/v1': {
        target: process.env.AGENT_RUNTIME_URL ?? 'http://127.0.0.1:8080',
        changeOrigin: true,
        // The page's origin is the dev server's, not serve's: the proxy makes them one, so the
        // browser's Origin header (which serve would refuse as cross-site) is dropped.
        configure: (proxy) => {
          proxy.on('proxyReq', (request) => request.removeHeader('origin'));
        },
      },
    },
  },
});
