import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// In development the Vite server proxies the API and sockets to a master on :8089.
const master = process.env.VOLLEY_MASTER ?? "http://127.0.0.1:8089";

export default defineConfig({
  plugins: [react()],
  server: {
    proxy: {
      "/api": master,
      "/metrics": master,
      "/ws": { target: master.replace(/^http/, "ws"), ws: true },
    },
  },
  build: {
    target: "es2022",
    sourcemap: false,
    chunkSizeWarningLimit: 700,
    rollupOptions: {
      output: {
        manualChunks: (id) => (id.includes("uplot") ? "charts" : undefined),
      },
    },
  },
});
