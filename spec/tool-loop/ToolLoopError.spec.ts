import { isLlmStreamError } from '../../src/errors/isLlmStreamError';
import { publicErrorData } from '../../src/errors/publicErrorData';
import { streamErrorData } from '../../src/errors/streamErrorData';
import { ToolLoopError } from '../../src/tool-loop/ToolLoopError';

describe('ToolLoopError', () => {
  const partial = { conversation: [{ role: 'user', content: 'hi' }], steps: [] };

  it('is an error of the library, also as a plain object from another realm', () => {
    const error = new ToolLoopError('the model still asked for calls after 3 steps (maxSteps)', { reason: 'max-steps', partial });
    expect(isLlmStreamError(error)).toBe(true);
    expect(isLlmStreamError({ name: 'ToolLoopError', message: 'x', reason: 'max-steps', partial })).toBe(true);
  });

  it('shows a browser a fixed message per reason, never the tool error it carries', () => {
    const failed = new ToolLoopError('tool call 0 (save, call_1) of step 2 failed: EACCES /srv/data/secret.db', {
      reason: 'tool-failed',
      cause: new Error('EACCES /srv/data/secret.db'),
      partial,
    });
    expect(publicErrorData(streamErrorData(failed))).toEqual({
      name: 'ToolLoopError',
      reason: 'tool-failed',
      message: 'a tool failed and ended the tool loop',
    });
    const limit = new ToolLoopError('the model still asked for calls after 3 steps (maxSteps)', { reason: 'max-steps', partial });
    expect(publicErrorData(streamErrorData(limit)).message).toBe('the tool loop reached its step limit');
  });
});
