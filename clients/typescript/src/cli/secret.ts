/** Reads a secret from standard input: without echo on a terminal, the first line of a pipe otherwise. */
import { createInterface } from 'node:readline';

export async function readSecret(prompt: string): Promise<string> {
  const input = process.stdin;
  if (!input.isTTY) {
    let data = '';
    for await (const chunk of input) data += String(chunk);
    return data.split(/\r?\n/)[0]!.trim();
  }
  process.stderr.write(prompt);
  const rl = createInterface({ input, output: process.stderr, terminal: true });
  // Typed characters are not written back: readline's echo goes through _writeToOutput.
  (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = () => {};
  try {
    const line = await new Promise<string>((resolve) => rl.question('', resolve));
    process.stderr.write('\n');
    return line.trim();
  } finally {
    rl.close();
  }
}
