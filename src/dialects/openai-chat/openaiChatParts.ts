import { AudioEvent, Source } from '../../types/events.js';
import { JsonObject, finiteNumber, isJsonObject, nonEmptyString } from '../../internal/json.js';
import { isIndex } from '../base/payloadValues.js';

/**
 * What the `openai-chat` dialect remembers of one choice beside its calls: the sources it already
 * emitted, what its audio has had, and whether it finished.
 */
export class ChatChoiceState {
  finished = false;
  /** Made at the first source: most choices cite none. */
  #sourceKeys: Set<string> | undefined = undefined;
  private audioParts = 0;
  /**
   * The latest delta of this choice held nothing but an audio expiry (`{"audio":{"expires_at":…}}`):
   * how an audio reply may end without a finish reason.
   */
  endedByAudioExpiry = false;

  /** The url and span of every source emitted: a provider that repeats its list adds only the new ones. */
  get sourceKeys(): Set<string> {
    return (this.#sourceKeys ??= new Set());
  }

  /** Notes the parts an audio piece had. */
  noteAudio(event: AudioEvent): void {
    if (event.id !== undefined) this.audioParts |= AUDIO_ID;
    if (event.data !== undefined) this.audioParts |= AUDIO_DATA;
    if (event.transcript !== undefined) this.audioParts |= AUDIO_TRANSCRIPT;
    if (event.expiresAt !== undefined) this.audioParts |= AUDIO_EXPIRY;
  }

  /**
   * True when this choice's audio ended as a whole audio reply ends without a finish reason: its
   * last delta was the expiry alone, and the audio had its id, data, transcript and expiry. The
   * official SDK (openai-node's `ChatCompletionStream`) takes such a choice as finished (`stop`),
   * and so does this dialect, at `[DONE]`.
   */
  get audioComplete(): boolean {
    return !this.finished && this.endedByAudioExpiry && this.audioParts === AUDIO_ALL;
  }
}

const AUDIO_ID = 1;
const AUDIO_DATA = 2;
const AUDIO_TRANSCRIPT = 4;
const AUDIO_EXPIRY = 8;
const AUDIO_ALL = AUDIO_ID | AUDIO_DATA | AUDIO_TRANSCRIPT | AUDIO_EXPIRY;

/**
 * The sources of `delta.annotations` that `seen` does not hold yet, noted in it: OpenAI's web search
 * (`{type: "url_citation", url_citation: {start_index, end_index, url, title}}`) and Groq's documents
 * (`{type: "document_citation", document_citation: {document_id, start_index, end_index}}`). A provider
 * may send the whole list again on a later chunk: an annotation is one source per url (or document)
 * and span, however often it comes. An annotation that names no source (Groq's `function_citation`
 * of a tool call, another type) goes to `unread`, once, for the open reply.
 */
export function newSources(annotations: readonly unknown[], seen: Set<string>, unread: unknown[]): Source[] {
  const sources: Source[] = [];
  for (const annotation of annotations) {
    const type = isJsonObject(annotation) ? annotation['type'] : undefined;
    const citation = type === 'url_citation' || type === 'document_citation' ? (annotation as JsonObject)[type] : undefined;
    const named = isJsonObject(citation) ? nonEmptyString(citation[type === 'url_citation' ? 'url' : 'document_id']) : undefined;
    if (named === undefined || !isJsonObject(citation)) {
      const key = JSON.stringify(annotation);
      if (!seen.has(key)) unread.push(annotation);
      seen.add(key);
      continue;
    }
    const start = citation['start_index'];
    const end = citation['end_index'];
    const span = isIndex(start) && isIndex(end) && start <= end ? { start, end } : undefined;
    const key = JSON.stringify([type, named, span?.start ?? null, span?.end ?? null]);
    if (seen.has(key)) continue;
    seen.add(key);
    const title = nonEmptyString(citation['title']);
    sources.push({
      ...(type === 'url_citation' ? { kind: 'url', url: named } : { kind: 'document', documentId: named }),
      ...(title === undefined ? {} : { title }),
      ...(span === undefined ? {} : { span }),
    });
  }
  return sources;
}

/**
 * The audio piece of `delta.audio` (`{id, data, transcript, expires_at}`, each only on some pieces)
 * as an `audio` event with the parts it had; undefined when it had none. `data` (base64) and
 * `transcript` are appended by the tracker, `id` and `expiresAt` replace.
 */
export function audioEvent(audio: JsonObject, choice: number): AudioEvent | undefined {
  const id = nonEmptyString(audio['id']);
  const data = nonEmptyString(audio['data']);
  const transcript = nonEmptyString(audio['transcript']);
  const expiresAt = finiteNumber(audio['expires_at']);
  if (id === undefined && data === undefined && transcript === undefined && expiresAt === undefined) return undefined;
  return {
    type: 'audio',
    choice,
    ...(id === undefined ? {} : { id }),
    ...(data === undefined ? {} : { data }),
    ...(transcript === undefined ? {} : { transcript }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
  };
}

/** True for a delta that holds nothing but an audio piece with only its expiry. */
export function isAudioExpiryOnly(delta: JsonObject, audio: AudioEvent | undefined): boolean {
  if (audio === undefined || audio.expiresAt === undefined) return false;
  if (audio.id !== undefined || audio.data !== undefined || audio.transcript !== undefined) return false;
  for (const key of Object.keys(delta)) if (key !== 'audio' && delta[key] !== null) return false;
  return true;
}
