// Streams a recorded reply from the replay server and renders the completion as it arrives.
// Page parameters: `recording` (a path under marbles/), and anything the replay server reads
// (`chunk`, `delay`, `truncate`, `stall`, `drop`, `status`), passed on as is.
import { fromFetch } from 'rxjs/fetch';
import { fromResponse, decodeUtf8, sseFrames, ndjsonFrames, assembleChunks, scanCompletion, isLlmStreamError } from 'rxjs-llm-stream';

const params = new URLSearchParams(location.search);
const recording = params.get('recording') ?? '/dialects/llamacpp-chat.sse';
params.delete('recording');

const app = document.getElementById('app');
const byId = (id) => document.getElementById(id);
let last = null; // the latest snapshot
let renders = 0;

byId('source').textContent = `${recording} ${params.toString()}`;

// fromFetch aborts the request if the subscription ends early; fromResponse checks the status and
// the content type, then hands on the body's chunks as they arrive.
fromFetch(`/marbles${recording}?${params}`, { selector: (response) => fromResponse(response) })
  .pipe(
    decodeUtf8(),
    recording.endsWith('.ndjson') ? ndjsonFrames() : sseFrames(),
    assembleChunks(),
    // The completion so far, after every event. A long reply in a real UI would render at most
    // once a frame: add auditTime(0, animationFrameScheduler) after this line.
    scanCompletion(),
  )
  .subscribe({
    next: (snapshot) => render(snapshot, 'streaming'),
    // Completing means every choice finished: a cut-off stream errors instead.
    complete: () => finish(last),
    error: (error) => {
      // A library error carries what arrived before the fault (a network error does not: keep
      // the last snapshot). Show it, with unfinished tool calls marked incomplete.
      const partial = isLlmStreamError(error) ? error.partial : last;
      if (partial) render(partial, 'error');
      app.dataset.state = 'error';
      byId('status').textContent = `${error.name}: ${error.message} (what arrived is shown above)`;
    },
  });

/** Shows a CompletionSnapshot: the completion so far. */
function render(snapshot, state) {
  last = snapshot;
  app.dataset.renders = String(++renders); // read by the test: the page was drawn progressively
  app.dataset.state = state;
  // textContent, never innerHTML: the model's text is not markup.
  byId('reasoning-section').hidden = snapshot.reasoning === null;
  byId('reasoning').textContent = snapshot.reasoning ?? '';
  byId('content').textContent = snapshot.content ?? '';
  byId('tool-calls-section').hidden = snapshot.toolCalls.length === 0;
  byId('tool-calls').replaceChildren(...snapshot.toolCalls.map((call) => toolCallItem(call, state)));
  byId('status').textContent = snapshot.inReasoning ? 'thinking…' : 'streaming…';
}

/** One tool call: its name, its argument text so far, and whether it is complete. */
function toolCallItem(call, state) {
  const item = document.createElement('li');
  item.dataset.complete = String(call.complete);
  const mark = call.complete ? '✓ complete' : state === 'streaming' ? '… streaming' : '✗ incomplete';
  item.append(
    element('span', 'mark', mark),
    element('code', 'name', call.name ?? '?'),
    '(',
    element('code', 'arguments', call.arguments),
    ')',
  );
  return item;
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  node.className = className;
  node.textContent = text;
  return node;
}

/** The status line of a reply whose every choice finished. */
function finish(snapshot) {
  app.dataset.state = 'finished';
  app.dataset.finishReason = snapshot.finishReason;
  const { usage } = snapshot;
  const tokens =
    usage === null
      ? 'no usage reported'
      : `usage: ${usage.promptTokens ?? '?'} prompt + ${usage.completionTokens ?? '?'} completion = ${usage.totalTokens ?? '?'} tokens`;
  byId('status').textContent = `finished · finish reason: ${snapshot.finishReason} · ${tokens}`;
}
