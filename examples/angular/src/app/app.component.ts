import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { rxResource } from '@angular/core/rxjs-interop';
import { tap } from 'rxjs';
import { isCompletionSnapshot, isLlmStreamError, type CompletionSnapshot, type PartialToolCall } from 'rxjs-llm-stream';
import { ChatService } from './chat.service';

// Page parameters: `recording` (a path under marbles/), and anything the replay server reads
// (`chunk`, `delay`, `truncate`, `stall`, `drop`, `reset`, `status`), passed on as is.
const params = new URLSearchParams(location.search);
const recording = params.get('recording') ?? '/dialects/llamacpp-chat.sse';
params.delete('recording');

type State = 'streaming' | 'finished' | 'error';

/** The reply as it streams: reasoning, answer and tool calls, then the finish, or the error and what had arrived. */
@Component({
  selector: 'app-root',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <main id="app" [attr.data-state]="state()" [attr.data-finish-reason]="shown()?.finishReason">
      <h1>rxjs-llm-stream in Angular</h1>
      <p id="source">{{ source }}</p>

      @if (shown()?.reasoning; as reasoning) {
        <section id="reasoning-section">
          <h2>Reasoning</h2>
          <p id="reasoning">{{ reasoning }}</p>
        </section>
      }

      <section>
        <h2>Answer</h2>
        <p id="content">{{ shown()?.content }}</p>
      </section>

      @if (shown()?.toolCalls; as calls) {
        @if (calls.length > 0) {
          <section id="tool-calls-section">
            <h2>Tool calls</h2>
            <ol id="tool-calls">
              @for (call of calls; track call.index) {
                <li [attr.data-complete]="call.complete">
                  <span class="mark">{{ mark(call) }}</span>
                  <code class="name">{{ call.name ?? '?' }}</code>
                  <code class="arguments">{{ call.arguments }}</code>
                </li>
              }
            </ol>
          </section>
        }
      }

      <p id="status" role="status">{{ status() }}</p>
    </main>
  `,
  styles: `
    main {
      font:
        16px/1.5 system-ui,
        sans-serif;
      max-width: 46rem;
      margin: 2rem auto;
      padding: 0 1rem;
    }
    #reasoning {
      color: #6b7280;
      font-style: italic;
      border-left: 3px solid #c5cad3;
      padding-left: 0.8rem;
      white-space: pre-wrap;
    }
    #content {
      color: #1d1f23;
      white-space: pre-wrap;
    }
    main[data-state='error'] #status {
      color: #7f1d1d;
    }
  `,
})
export class AppComponent {
  private readonly chat = inject(ChatService);
  protected readonly source = `${recording} ${params.toString()}`;
  /** Set when the stream completes: every choice finished and the stream said it was over. */
  private readonly done = signal(false);

  /** The completion so far; a cut-off reply puts the resource in its error state. */
  protected readonly reply = rxResource({
    params: () => `/marbles${recording}?${params.toString()}`,
    stream: ({ params: url }) => this.chat.reply(url).pipe(tap({ complete: () => this.done.set(true) })),
  });

  protected readonly state = computed<State>(() => (this.reply.status() === 'error' ? 'error' : this.done() ? 'finished' : 'streaming'));

  /** What to show: the latest snapshot, or after an error what had arrived (the error's `partial`). */
  protected readonly shown = computed<CompletionSnapshot | undefined>(() => {
    if (this.reply.status() === 'error') {
      // A library error carries what had arrived (a failure of anything else would not).
      const error = this.reply.error();
      return isLlmStreamError(error) && isCompletionSnapshot(error.partial) ? error.partial : undefined;
    }
    return this.reply.hasValue() ? this.reply.value() : undefined;
  });

  protected readonly status = computed(() => {
    const error = this.reply.error();
    if (this.reply.status() === 'error' && error !== undefined) return `${error.name}: ${error.message} (what arrived is shown above)`;
    const snapshot = this.shown();
    if (this.done()) return `finished · finish reason: ${snapshot?.finishReason ?? 'none'}`;
    if (snapshot === undefined) return 'waiting for the reply…';
    return snapshot.inReasoning ? 'thinking…' : 'streaming…';
  });

  protected mark(call: PartialToolCall): string {
    if (call.complete) return '✓ complete';
    return this.state() === 'streaming' ? '… streaming' : '✗ incomplete';
  }
}
