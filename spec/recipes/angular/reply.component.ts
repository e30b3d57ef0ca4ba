import { ChangeDetectionStrategy, Component, signal } from '@angular/core';
import { takeUntilDestroyed } from '@angular/core/rxjs-interop';
import { identity } from 'rxjs';
import { fromFetch } from 'rxjs/fetch';
import { assembleChunks, decodeUtf8, fromResponse, latestPerFrame, scanCompletion, sseFrames } from 'rxjs-llm-stream';

// Page parameters: `stream`, the URL of the reply; `perFrame=off` renders every snapshot, to compare.
const params = new URLSearchParams(location.search);

/** A reply as it streams, in a signal: with `latestPerFrame()`, set (and so rendered) once a frame at most. */
@Component({
  selector: 'app-reply',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `<p id="reply" [attr.data-state]="state()">{{ text() }}</p>`,
  styles: `
    #reply {
      white-space: pre-wrap;
    }
  `,
})
export class ReplyComponent {
  readonly text = signal('');
  readonly state = signal<'streaming' | 'done' | 'cut off'>('streaming');

  constructor() {
    fromFetch(params.get('stream') ?? '/api/chat', { selector: (response) => fromResponse(response) })
      .pipe(
        decodeUtf8(),
        sseFrames(),
        assembleChunks(),
        scanCompletion(),
        // What arrived since the last frame, as its latest snapshot; at the end, at once.
        params.get('perFrame') === 'off' ? identity : latestPerFrame(),
        takeUntilDestroyed(),
      )
      .subscribe({
        next: (snapshot) => this.text.set(snapshot.content ?? ''),
        complete: () => this.state.set('done'),
        error: () => this.state.set('cut off'),
      });
  }
}
