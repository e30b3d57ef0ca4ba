/**
 * Writes the example streams of the `openai-realtime` dialect: one reply of an OpenAI Realtime
 * session each, one server event a line (NDJSON, as a session's messages are recorded).
 *
 * Origin: no public project records Realtime sessions as text that could be taken here, so each event
 * is built from the types of the `openai` SDK 7.x (`RealtimeServerEvent`,
 * node_modules/openai-current/resources/realtime/realtime.d.ts): `tsc` refuses an event whose fields
 * the SDK does not have, or that lacks one it requires. The ids, texts and counts are made up; the
 * order of events is the one the SDK's doc comments and OpenAI's Realtime guide give (the item, its
 * part, the deltas, the `.done` events, the item done, `response.done`). Session events that a
 * socket carries around a reply (`conversation.item.added`, `rate_limits.updated`) are in the audio
 * stream, as a session interleaves them.
 *
 * Run: `npx ts-node --transpile-only -O '{"module":"commonjs"}' marbles/dialects/openai-realtime/build.ts`,
 * then `python3 marbles/tools/expected.py --write marbles/dialects/openai-realtime/*.ndjson`.
 */
import { writeFileSync } from 'fs';
import { join } from 'path';
import type { RealtimeResponse, RealtimeServerEvent } from 'openai-current/resources/realtime/realtime';

let eventNumber = 100;
/** Every server event has an id of its own. */
const eventId = (): string => `event_CWx${eventNumber++}`;

function response(id: string, modalities: Array<'text' | 'audio'>, extra: Partial<RealtimeResponse> = {}): RealtimeResponse {
  return {
    object: 'realtime.response',
    id,
    status: 'in_progress',
    conversation_id: 'conv_CWwx2bT1oV0D',
    output_modalities: modalities,
    max_output_tokens: 'inf',
    audio: { output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'marin' } },
    output: [],
    usage: undefined,
    metadata: null,
    ...extra,
  };
}

function created(id: string, modalities: Array<'text' | 'audio'>): RealtimeServerEvent {
  return { type: 'response.created', event_id: eventId(), response: response(id, modalities) };
}

/** A message item's events: added, its part, the text (or transcript and audio) deltas, the `.done` events. */
function message(responseId: string, itemId: string, pieces: string[], audio?: string[]): RealtimeServerEvent[] {
  const at = { response_id: responseId, item_id: itemId, output_index: 0, content_index: 0 };
  const whole = pieces.join('');
  const events: RealtimeServerEvent[] = [
    {
      type: 'response.output_item.added',
      event_id: eventId(),
      response_id: responseId,
      output_index: 0,
      item: { id: itemId, object: 'realtime.item', type: 'message', status: 'in_progress', role: 'assistant', content: [] },
    },
    { type: 'response.content_part.added', event_id: eventId(), ...at, part: audio ? { type: 'audio', transcript: '' } : { type: 'text', text: '' } },
  ];
  if (audio === undefined) {
    for (const delta of pieces) events.push({ type: 'response.output_text.delta', event_id: eventId(), ...at, delta });
    events.push({ type: 'response.output_text.done', event_id: eventId(), ...at, text: whole });
  } else {
    // The transcript runs ahead of the audio, as the guide shows; the audio is base64 PCM, passed on as it comes.
    pieces.forEach((delta, k) => {
      events.push({ type: 'response.output_audio_transcript.delta', event_id: eventId(), ...at, delta });
      const data = audio[k];
      if (data !== undefined) events.push({ type: 'response.output_audio.delta', event_id: eventId(), ...at, delta: data });
    });
    events.push({ type: 'response.output_audio.done', event_id: eventId(), ...at });
    events.push({ type: 'response.output_audio_transcript.done', event_id: eventId(), ...at, transcript: whole });
  }
  events.push({
    type: 'response.content_part.done',
    event_id: eventId(),
    ...at,
    part: audio ? { type: 'audio', transcript: whole } : { type: 'text', text: whole },
  });
  return events;
}

function messageDone(responseId: string, itemId: string, whole: string, audio: boolean, status: 'completed' | 'incomplete'): RealtimeServerEvent {
  return {
    type: 'response.output_item.done',
    event_id: eventId(),
    response_id: responseId,
    output_index: 0,
    item: {
      id: itemId,
      object: 'realtime.item',
      type: 'message',
      status,
      role: 'assistant',
      content: [audio ? { type: 'output_audio', transcript: whole } : { type: 'output_text', text: whole }],
    },
  };
}

/** A function call item's events: added, the argument deltas, `.done` with the name and the whole text, the item done. */
function call(responseId: string, outputIndex: number, itemId: string, callId: string, name: string, pieces: string[]): RealtimeServerEvent[] {
  const at = { response_id: responseId, item_id: itemId, output_index: outputIndex, call_id: callId };
  const whole = pieces.join('');
  return [
    {
      type: 'response.output_item.added',
      event_id: eventId(),
      response_id: responseId,
      output_index: outputIndex,
      item: { id: itemId, object: 'realtime.item', type: 'function_call', status: 'in_progress', call_id: callId, name, arguments: '' },
    },
    ...pieces.map((delta): RealtimeServerEvent => ({ type: 'response.function_call_arguments.delta', event_id: eventId(), ...at, delta })),
    { type: 'response.function_call_arguments.done', event_id: eventId(), ...at, name, arguments: whole },
    {
      type: 'response.output_item.done',
      event_id: eventId(),
      response_id: responseId,
      output_index: outputIndex,
      item: { id: itemId, object: 'realtime.item', type: 'function_call', status: 'completed', call_id: callId, name, arguments: whole },
    },
  ];
}

function done(id: string, modalities: Array<'text' | 'audio'>, extra: Partial<RealtimeResponse>): RealtimeServerEvent {
  return { type: 'response.done', event_id: eventId(), response: response(id, modalities, extra) };
}

const TEXT = ['Bonjour', ' !', ' Il fait', ' 18 °C', ' à Paris', ' 🌤'];
const TRANSCRIPT = ['Sure', ',', ' the', ' café', ' opens', ' at', ' eight.'];
const AUDIO = ['AAABAAIAAwAEAA==', 'BQAGAAcACAAJAA==', 'CgALAAwADQAOAA==', 'DwAQABEAEgATAA=='];

const STREAMS: Record<string, RealtimeServerEvent[]> = {
  // A text reply (output_modalities ["text"]), completed, with its usage and cached tokens.
  text: [
    created('resp_CWx1text', ['text']),
    ...message('resp_CWx1text', 'item_CWx1msg', TEXT),
    messageDone('resp_CWx1text', 'item_CWx1msg', TEXT.join(''), false, 'completed'),
    done('resp_CWx1text', ['text'], {
      status: 'completed',
      status_details: { type: 'completed' },
      usage: {
        total_tokens: 1402,
        input_tokens: 1380,
        output_tokens: 22,
        input_token_details: { text_tokens: 1380, audio_tokens: 0, image_tokens: 0, cached_tokens: 1280 },
        output_token_details: { text_tokens: 22, audio_tokens: 0 },
      },
    }),
  ],
  // An audio reply: its transcript and its audio, with the session's own events around it.
  audio: [
    created('resp_CWx2audio', ['audio']),
    { type: 'rate_limits.updated', event_id: eventId(), rate_limits: [{ name: 'tokens', limit: 40000, remaining: 38599, reset_seconds: 2.1 }] },
    ...message('resp_CWx2audio', 'item_CWx2msg', TRANSCRIPT, AUDIO).flatMap((event, k) =>
      k === 0
        ? [
            event,
            {
              type: 'conversation.item.added',
              event_id: eventId(),
              previous_item_id: 'item_CWx2user',
              item: { id: 'item_CWx2msg', object: 'realtime.item', type: 'message', status: 'in_progress', role: 'assistant', content: [] },
            } satisfies RealtimeServerEvent,
          ]
        : [event],
    ),
    messageDone('resp_CWx2audio', 'item_CWx2msg', TRANSCRIPT.join(''), true, 'completed'),
    done('resp_CWx2audio', ['audio'], {
      status: 'completed',
      status_details: { type: 'completed' },
      usage: {
        total_tokens: 291,
        input_tokens: 187,
        output_tokens: 104,
        input_token_details: { text_tokens: 112, audio_tokens: 75, image_tokens: 0, cached_tokens: 0 },
        output_token_details: { text_tokens: 21, audio_tokens: 83 },
      },
    }),
  ],
  // A voice agent's two tool calls, and no text.
  'function-calls': [
    created('resp_CWx3calls', ['audio']),
    ...call('resp_CWx3calls', 0, 'item_CWx3fc0', 'call_kE8t2Zq', 'get_weather', ['{"city":', '"Paris",', '"unit":"c', 'elsius"}']),
    ...call('resp_CWx3calls', 1, 'item_CWx3fc1', 'call_V0m1Rxa', 'book_table', ['{"restaurant":"Café de Flore",', '"guests":2}']),
    done('resp_CWx3calls', ['audio'], {
      status: 'completed',
      status_details: { type: 'completed' },
      usage: {
        total_tokens: 744,
        input_tokens: 702,
        output_tokens: 42,
        input_token_details: { text_tokens: 650, audio_tokens: 52, cached_tokens: 0 },
        output_token_details: { text_tokens: 42, audio_tokens: 0 },
      },
    }),
  ],
  // The token limit cut a text reply.
  'max-output-tokens': [
    created('resp_CWx4cut', ['text']),
    ...message('resp_CWx4cut', 'item_CWx4msg', TEXT.slice(0, 3)),
    messageDone('resp_CWx4cut', 'item_CWx4msg', TEXT.slice(0, 3).join(''), false, 'incomplete'),
    done('resp_CWx4cut', ['text'], {
      status: 'incomplete',
      status_details: { type: 'incomplete', reason: 'max_output_tokens' },
      max_output_tokens: 3,
      usage: { total_tokens: 1383, input_tokens: 1380, output_tokens: 3 },
    }),
  ],
  // The user spoke over the reply: the server cancelled it (turn_detected), its transcript cut.
  'cancelled-by-turn': [
    created('resp_CWx5barge', ['audio']),
    ...message('resp_CWx5barge', 'item_CWx5msg', TRANSCRIPT.slice(0, 3), AUDIO.slice(0, 2)).slice(0, -3),
    { type: 'response.output_audio.done', event_id: eventId(), response_id: 'resp_CWx5barge', item_id: 'item_CWx5msg', output_index: 0, content_index: 0 },
    messageDone('resp_CWx5barge', 'item_CWx5msg', TRANSCRIPT.slice(0, 3).join(''), true, 'incomplete'),
    done('resp_CWx5barge', ['audio'], { status: 'cancelled', status_details: { type: 'cancelled', reason: 'turn_detected' } }),
  ],
  // The response failed on the server.
  failed: [
    created('resp_CWx6fail', ['text']),
    ...message('resp_CWx6fail', 'item_CWx6msg', TEXT.slice(0, 2)).slice(0, -2),
    done('resp_CWx6fail', ['text'], {
      status: 'failed',
      status_details: { type: 'failed', error: { type: 'server_error', code: 'server_error', message: 'The server had an error.' } },
    }),
  ],
};

if (require.main === module) {
  for (const [name, events] of Object.entries(STREAMS)) {
    writeFileSync(join(__dirname, `${name}.ndjson`), events.map((event) => `${JSON.stringify(event)}\n`).join(''));
  }
}
