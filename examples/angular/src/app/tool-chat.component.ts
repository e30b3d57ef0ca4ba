import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { rxResource } from '@angular/core/rxjs-interop';
import { scan } from 'rxjs';
import { type ToolLoopEvent } from 'rxjs-llm-stream';
import { ToolChatService } from './tool-chat.service';

/** What the page has seen of the loop so far. */
interface LoopView {
  readonly steps: number;
  readonly results: readonly string[];
  readonly answer: string;
  readonly finished: boolean;
}

const START: LoopView = { steps: 0, results: [], answer: '', finished: false };

/** A step's answer grows with its content events; a new step starts a new answer. */
function fold(view: LoopView, event: ToolLoopEvent<unknown>): LoopView {
  switch (event.type) {
    case 'step-start':
      return { ...view, steps: event.step, answer: '' };
    case 'event':
      return event.event.type === 'content' ? { ...view, answer: view.answer + event.event.text } : view;
    case 'tool-result':
      return { ...view, results: [...view.results, `${event.call.name}: ${JSON.stringify(event.result.output)}`] };
    case 'loop-finish':
      return { ...view, finished: true };
    default:
      return view;
  }
}

/** The tool loop of `ToolChatService` on a page: the question of `?question=`, each step, each result, the answer. */
@Component({
  selector: 'app-root',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <main id="app" [attr.data-state]="state()">
      <h1>A tool loop in Angular</h1>
      <p id="question">{{ question }}</p>
      <p id="steps">{{ view()?.steps ?? 0 }}</p>
      <ol id="results">
        @for (result of view()?.results ?? []; track $index) {
          <li>{{ result }}</li>
        }
      </ol>
      <p id="content">{{ view()?.answer }}</p>
      <p id="status" role="status">{{ status() }}</p>
    </main>
  `,
})
export class ToolChatComponent {
  private readonly chat = inject(ToolChatService);
  protected readonly question = new URLSearchParams(location.search).get('question') ?? 'What time is it?';

  protected readonly loop = rxResource({
    params: () => this.question,
    stream: ({ params: question }) => this.chat.ask(question).pipe(scan(fold, START)),
  });

  protected readonly view = computed(() => (this.loop.hasValue() ? this.loop.value() : undefined));
  protected readonly state = computed(() =>
    this.loop.status() === 'error' ? 'error' : this.view()?.finished === true ? 'finished' : 'streaming',
  );
  protected readonly status = computed(() => {
    const error = this.loop.error();
    return error !== undefined ? `${error.name}: ${error.message}` : this.state();
  });
}
