/**
 * A request over node:http with `Connection: close`, read to the end of its connection: what a stream
 * answer gave, and whether it ended cleanly; and a wait for what happens on the server meanwhile.
 */
import http from 'node:http';

/**
 * What a request got.
 *
 * @example
 * const answer: Answer = { status: 200, headers: {}, body: Buffer.from(''), complete: true };
 */
export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The body ended cleanly (its last chunk, or all of its Content-Length). */
  complete: boolean;
}

/**
 * Sends a request and resolves once its connection closes, with the body read so far.
 *
 * @example
 * const answer = await request(server.baseUrl, '/report.csv', { headers: { range: 'bytes=0-9' } });
 */
export function request(baseUrl: string, path: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${baseUrl}${path}`, { method: options.method ?? 'GET', headers: { connection: 'close', ...options.headers } }, (res) => {
      const chunks: Buffer[] = [];
      let ended = false;
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => (ended = true));
      res.on('error', () => {});
      res.on('close', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks), complete: ended && res.complete }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Waits until a condition holds, or fails after a while.
 *
 * @example
 * await eventually(() => closed === 1, 'the source closed');
 */
export async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; waited < 3000; waited += 10) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`Not seen: ${what}`);
}
