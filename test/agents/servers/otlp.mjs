// A small OTLP/HTTP JSON receiver on 127.0.0.1: what the agents' OpenTelemetry exporters post
// (`/v1/logs`, `/v1/traces`, `/v1/metrics`), kept in arrival order as the Collector's file
// exporter would write it, one export request per line.
import { createServer } from 'node:http';

export function startOtlp() {
  const received = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const signal = /\/v1\/(logs|traces|metrics)$/.exec(req.url ?? '')?.[1] ?? 'other';
      const text = Buffer.concat(chunks).toString('utf8');
      let body = null;
      try {
        body = JSON.parse(text);
      } catch {
        // Not JSON (a protobuf export): kept as a count only, so a misconfigured agent shows.
      }
      received.push({ signal, contentType: String(req.headers['content-type'] ?? ''), body });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        received,
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}
