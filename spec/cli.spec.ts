import { readFileSync } from 'fs';
import { join } from 'path';
import { fromFetch } from 'rxjs/fetch';
import { render, replay } from '../src/cli/replay';
import { startReplayServer } from '../src/cli/replayServer';
import { fromResponse } from '../src/io/fromResponse';

const marble = (path: string): Uint8Array => new Uint8Array(readFileSync(join(__dirname, '..', 'marbles', path)));

async function run(path: string, options: { json?: boolean; chunkSize?: number } = {}): Promise<{ code: number; output: string }> {
  let output = '';
  const code = await replay(marble(path), { ...options, write: (text) => (output += text) });
  return { code, output };
}

describe('replay (the CLI and the demo)', () => {
  it('prints reasoning, text and tool calls as they arrive, then the completion, and exits 0', async () => {
    const { code, output } = await run('dialects/llamacpp-chat.sse');
    expect(code).toBe(0);
    expect(output).toContain('[thinking] The user wants the current weather in Paris and Tokyo.');
    expect(output).toContain('Let me check both cities.');
    expect(output).toContain('→ get_weather({"city": "Paris", "unit": "celsius"})');
    expect(output.indexOf('[thinking]')).toBeLessThan(output.indexOf('Let me check'));
    expect(output.indexOf('Let me check')).toBeLessThan(output.indexOf('→ get_weather'));
    expect(output).toContain('completion:\n{\n  "id": "chatcmpl-Xr7Qm2Tz9LkWp4Nb8Vc1Hs6Jd3Fg5Ya0"');
    expect(output).not.toContain('\x1b['); // no colour unless asked
  });

  it('shows the error and what was saved for a truncated stream, and exits 1', async () => {
    const { code, output } = await run('openai/truncated-in-arguments.sse', { chunkSize: 5 });
    expect(code).toBe(1);
    expect(output).toContain('StreamClosedEarlyError: the stream ended without [DONE]');
    expect(output).toContain('saved so far:');
    expect(output).toContain('"arguments": "{\\"city\\":\\"Bergen\\",\\"un"');
  });

  it('prints one JSON line per event with --json, then the result', async () => {
    const { code, output } = await run('openai/text.sse', { json: true });
    const lines = output.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(code).toBe(0);
    expect(lines[0]).toMatchObject({ type: 'start' });
    expect(lines.at(-1)).toHaveProperty('completion');
    const errorRun = await run('openai/error-payload.sse', { json: true });
    expect(errorRun.code).toBe(1);
    expect(JSON.parse(errorRun.output.trim().split('\n').at(-1)!)).toMatchObject({ error: { name: 'ProviderError' } });
  });

  it('renders a reply streamed over HTTP from the replay server, as the demo does', async () => {
    const server = await startReplayServer();
    try {
      let output = '';
      const code = await render(
        fromFetch(`${server.url}/dialects/anthropic-messages.sse?chunk=50&delay=1`, { selector: (r) => fromResponse(r) }),
        { write: (text) => (output += text) },
      );
      expect(code).toBe(0);
      expect(output).toContain('Let me check both cities.');
      expect(output).toContain('→ get_weather');
      expect(server.requests[0]?.finished).toBe(true);
    } finally {
      await server.close();
    }
  });
});
