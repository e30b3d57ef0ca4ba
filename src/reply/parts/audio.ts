import { TextBuilder } from '../../internal/TextBuilder.js';
import type { ReplyPart } from './ReplyPart.js';

/** One choice's audio so far: its base64 pieces and transcript joined as they arrive. */
interface AudioState {
  id: string | null;
  readonly data: TextBuilder;
  readonly transcript: TextBuilder;
  expiresAt: number | null;
}

/**
 * `audio`: a choice's audio output, its base64 pieces and its transcript each joined; the id and the
 * expiry as the latest piece that named them.
 *
 * @example
 * ```ts
 * const audio = audioPart.start();
 * audioPart.fold(audio, { type: 'audio', choice: 0, id: 'audio_1', transcript: 'Hi' });
 * ```
 */
export const audioPart: ReplyPart<'audio', AudioState> = {
  field: 'audio',
  events: ['audio'],
  start: () => ({ id: null, data: new TextBuilder(), transcript: new TextBuilder(), expiresAt: null }),
  fold(audio, event) {
    if (event.type !== 'audio') return;
    if (event.id !== undefined) audio.id = event.id;
    if (event.data !== undefined) audio.data.append(event.data);
    if (event.transcript !== undefined) audio.transcript.append(event.transcript);
    if (event.expiresAt !== undefined) audio.expiresAt = event.expiresAt;
  },
  show({ id, data, transcript, expiresAt }, view) {
    view.audio = { id, data: data.value ?? '', transcript: transcript.value ?? '', expiresAt };
  },
};
