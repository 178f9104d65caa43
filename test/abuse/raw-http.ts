/** One request written byte for byte on a socket, and the response as the server sent it (for wire-level tests). */
import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Whether the server closed the connection after answering. */
  closed: boolean;
}

export function rawRequest(port: number, bytes: string | Buffer, timeoutMs = 5_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closed = false;
    const timer = setTimeout(() => finish(), timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
      if (!status) return reject(new Error(`no HTTP response (closed=${closed}): ${JSON.stringify(text.slice(0, 200))}`));
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      let body = rest.join('\r\n\r\n');
      const length = headers['content-length'];
      if (length !== undefined) body = Buffer.from(body).subarray(0, Number(length)).toString('utf8');
      resolve({ status, headers, body, closed });
    };
    socket.on('data', (c) => {
      chunks.push(c);
      // Keep-alive answers are complete once Content-Length bytes arrived.
      const text = Buffer.concat(chunks).toString('utf8');
      const m = /\r\ncontent-length: *(\d+)/i.exec(text);
      const headEnd = text.indexOf('\r\n\r\n');
      if (m && headEnd !== -1 && Buffer.byteLength(text.slice(headEnd + 4)) >= Number(m[1])) finish();
    });
    socket.on('end', () => {
      closed = true;
      finish();
    });
    socket.on('error', () => {
      closed = true;
      finish();
    });
    socket.write(bytes);
  });
}
