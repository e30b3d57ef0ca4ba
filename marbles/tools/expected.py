#!/usr/bin/env python3
"""An independent reader of the recorded streams in marbles/: bytes in, expected result out.

It exists so that the TypeScript library is checked against a second, separate reading of the same
bytes. It shares no code with the library and must never be "fixed" by copying the library's output:
when the two disagree, read the bytes by hand and decide which one is wrong.

Standard library only (Python 3.8+). What it implements:

* Framing: the WHATWG event-stream rules (UTF-8, one leading BOM dropped, lines ending in CRLF, LF
  or CR, comments, `field: value` with one optional space stripped, `data` lines joined with LF,
  `event`, `id`, `retry`, dispatch on a blank line), with this library's end-of-input rule: a final
  block whose lines are complete but which lacks its blank line is dispatched; a line cut before its
  line end is not, and makes the stream one that closed early. Ollama's native format is NDJSON.
* Dialects: OpenAI Chat Completions and its compatibles (`openai-chat`), Anthropic Messages
  (`anthropic`), OpenAI Responses (`openai-responses`: function and custom calls, citations as
  sources, the tools the provider runs itself, log probabilities), Gemini native (`gemini`), Ollama
  native (`ollama`), llama.cpp native `/completion` (`llamacpp-completion`), Cohere v2 (`cohere`),
  Bedrock ConverseStream (`bedrock-converse`), Mistral Conversations (`mistral-conversations`), Gemini's
  Interactions API (`gemini-interactions`).
* Assembly into the `Completion` of src/events.ts (key order as in the interface), or an error with
  the partial result, per marbles/README.md.

Usage:
  expected.py FILE [--dialect D]      print the expected result of one recording
  expected.py --write FILE...         write NAME.expected.json beside each recording
  expected.py --check [FILE...]       compare with the NAME.expected.json files (default: all)
"""

import argparse
import json
import os
import re
import struct
import sys
import zlib

MARBLES = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECORDING_EXTENSIONS = ('.sse', '.ndjson', '.eventstream')

# Recordings that are not OpenAI Chat Completions, by path relative to marbles/.
DIALECT_OF = {
    'dialects/anthropic-messages.sse': 'anthropic',
    'dialects/openai-responses.sse': 'openai-responses',
    'dialects/gemini-native.sse': 'gemini',
    'real/vertex-stream-tool-call-arguments.sse': 'gemini',
    'real/vertex-stream-tool-call-arguments-nested.1.sse': 'gemini',
    'real/vertex-stream-tool-call-array-arguments.sse': 'gemini',
    'dialects/ollama-native.ndjson': 'ollama',
    'dialects/llamacpp-completion.sse': 'llamacpp-completion',
    'real/anthropic-json-tool.2.sse': 'anthropic',
    'real/openai-custom-tool.1.sse': 'openai-responses',
    'real/openai-web-search-tool.1.sse': 'openai-responses',
    'real/openai-file-search-tool.1.sse': 'openai-responses',
    'real/openai-code-interpreter-tool.1.sse': 'openai-responses',
    'real/openai-image-generation-tool.1.sse': 'openai-responses',
    'dialects/typed-events.sse': 'typed-events',
}

# The folders of dialects/ named after the dialect of every recording in them. (dialects/cohere/ is not
# one: its results are written out by hand in its spec, as marbles/README.md says.)
FOLDER_DIALECTS = {'mistral-conversations', 'gemini-interactions', 'openai-realtime'}


class Fault(Exception):
    """The stream ends in one of the library's errors (the expected result is that error)."""

    def __init__(self, name, reason):
        super().__init__(f'{name}: {reason}')
        self.name = name
        self.reason = reason


class Unsupported(Exception):
    """This reader cannot give a reliable expectation for the input; never write a file from it."""


# --------------------------------------------------------------------------------------------------
# Framing


class SseFrame:
    def __init__(self, event, data, last_id):
        self.event = event
        self.data = data
        self.id = last_id


def read_sse(raw):
    """Returns (frames, cut_mid_line). Follows the WHATWG event-stream interpretation."""
    try:
        text = raw.decode('utf-8')
    except UnicodeDecodeError as error:
        raise Unsupported(f'not valid UTF-8: {error}')
    if text.startswith('\ufeff'):
        text = text[1:]

    # Split into lines; the text after the last line end (if any) is an incomplete line.
    lines = []
    start = 0
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == '\n':
            lines.append(text[start:i])
            i += 1
            start = i
        elif c == '\r':
            lines.append(text[start:i])
            i += 2 if i + 1 < n and text[i + 1] == '\n' else 1
            start = i
        else:
            i += 1
    incomplete = text[start:]

    frames = []
    data = []
    event_type = ''
    last_id = ''

    def dispatch():
        nonlocal data, event_type
        if data:
            frames.append(SseFrame(event_type or 'message', '\n'.join(data), last_id))
        data = []
        event_type = ''

    for line in lines:
        if line == '':
            dispatch()
            continue
        if line.startswith(':'):
            continue
        if ':' in line:
            field, value = line.split(':', 1)
            if value.startswith(' '):
                value = value[1:]
        else:
            field, value = line, ''
        if field == 'data':
            data.append(value)
        elif field == 'event':
            event_type = value
        elif field == 'id':
            if '\0' not in value:
                last_id = value
        # `retry` and unknown fields change nothing this reader reports.

    cut_mid_line = incomplete != ''
    if not cut_mid_line:
        # The library dispatches a final block whose lines are complete but that lacks its blank line.
        dispatch()
    elif data:
        raise Unsupported('a block with complete lines is followed by a cut line: the order of the errors is not specified')
    return frames, cut_mid_line


def read_ndjson(raw):
    """Returns (lines, cut_mid_line) for newline-delimited JSON."""
    text = raw.decode('utf-8')
    pieces = text.split('\n')
    incomplete = pieces.pop()  # '' when the text ends in a line end
    lines = [piece[:-1] if piece.endswith('\r') else piece for piece in pieces]
    return [line for line in lines if line.strip() != ''], incomplete.strip() != ''


# --------------------------------------------------------------------------------------------------
# JSON helpers


def _reject_constant(name):
    raise ValueError(f'{name} is not JSON')


def parse_json(text):
    return json.loads(text, parse_constant=_reject_constant)


def js_stringify(value):
    """JSON text as JavaScript's JSON.stringify writes it (for arguments sent as objects)."""
    if isinstance(value, float):
        if value != value or value in (float('inf'), float('-inf')):
            raise Unsupported('non-finite number')
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
        return repr(value)
    if isinstance(value, dict):
        return '{' + ','.join(json.dumps(k, ensure_ascii=False) + ':' + js_stringify(v) for k, v in value.items()) + '}'
    if isinstance(value, list):
        return '[' + ','.join(js_stringify(v) for v in value) + ']'
    return json.dumps(value, ensure_ascii=False)


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def text_piece(value):
    """A piece of text, or None for null, absent, non-string or empty (empty pieces do not count)."""
    return value if isinstance(value, str) and value != '' else None


# --------------------------------------------------------------------------------------------------
# Assembly shared by every dialect


class ToolCallAcc:
    def __init__(self, position):
        self.index = position
        self.id = None
        self.name = None
        self.arguments = []
        self.kind = None  # 'custom' for a free-form call, whose text is never parsed
        self.closed = False  # a custom call: its item or its input was finished
        self.metadata = {}  # fields of its fragments that the dialect does not map, the last value of each
        self.namespace = None  # the namespace of the function, when the provider names one


def utf16_length(text):
    """The length of a text in UTF-16 code units, the unit of JavaScript strings and of spans."""
    return len(text.encode('utf-16-le')) // 2


class ChoiceAcc:
    def __init__(self, index):
        self.index = index
        self.content = []
        self.reasoning = []
        self.refusal = []
        self.calls = []
        self.by_key = {}  # the dialect's key of a call (raw index, block index, item id) -> position
        self.by_id = {}
        self.raw_finish = None
        self.finish_details = {}  # what the provider said of the finish beyond its reason (stopSequence, message, category)
        self.signatures = []  # opaque reasoning artifacts for the next turn, in arrival order
        self.logprobs = {}  # 'content' / 'refusal' -> token entries in OpenAI's shape, joined in order
        self.sources = []  # sources cited or searched, in arrival order, in the shape of the Completion
        self.audio = None  # {'id', 'data': [pieces], 'transcript': [pieces], 'expiresAt'} once audio came
        self.provider_calls = []  # tools the provider ran itself: {id, name, type, input[, result]}
        self.tool_requests = []  # calls that wait for the program's answer or approval: {id, type, kind, name, input}
        self.opaque = []  # what the next turn sends back verbatim, each with its part and where it came
        self.metadata = {}  # fields of the choice (and its deltas) that the dialect does not map, the last value of each

    def has_output(self):
        return bool(self.content or self.reasoning or self.refusal or self.calls or self.audio)

    def keep_item(self, item):
        """An item of a kind the dialect does not read: kept whole, in arrival order, under `items`."""
        self.metadata.setdefault('items', []).append(item)
    def opaque_item(self, provider, kind, item_type, part, data, call=None, block=None, span=None):
        """An item the next turn must send back: where it came is the UTF-16 length of the text before it."""
        item = {'provider': provider, 'kind': kind, 'type': item_type, 'part': part}
        if call is not None:
            item['call'] = call
        if block is not None:
            item['block'] = block
        if span is not None:
            item['span'] = span
        item['data'] = data
        item['at'] = {'reasoning': utf16_length(''.join(self.reasoning)), 'content': utf16_length(''.join(self.content))}
        self.opaque.append(item)

    def _new_call(self):
        call = ToolCallAcc(len(self.calls))
        self.calls.append(call)
        return call

    def tool_fragment(self, key, call_id, name, arguments, kind=None):
        """One fragment of a tool call.

        key: the dialect's key for the call (OpenAI `index`, Anthropic block index, Responses item id)
        or None when the fragment has none (Mistral, Gemini-compat). Positions are dense, in order of
        first appearance. A keyless fragment joins the call with its id if that id was seen, starts a
        new call if it has an id or a name, and otherwise continues the most recent call.
        """
        if key is not None:
            if key in self.by_key:
                call = self.calls[self.by_key[key]]
            else:
                call = self._new_call()
                self.by_key[key] = call.index
        elif call_id is not None and call_id in self.by_id:
            call = self.calls[self.by_id[call_id]]
        elif call_id is not None or name is not None or not self.calls:
            call = self._new_call()
        else:
            call = self.calls[-1]
        self._fill(call, call_id, name, arguments)
        if kind is not None:
            call.kind = kind
        return call

    def whole_call(self, call_id, name, arguments):
        """A call that arrives complete (Gemini native, Ollama native): always a new position."""
        call = self._new_call()
        self._fill(call, call_id, name, arguments)
        return call

    def _fill(self, call, call_id, name, arguments):
        if call_id is not None:
            if call.id is None:
                call.id = call_id
                self.by_id.setdefault(call_id, call.index)
            elif call.id != call_id:
                raise Unsupported(f'tool call {call.index} got a second id {call_id!r} (had {call.id!r})')
        if name is not None:
            if call.name is None:
                call.name = name
            elif call.name != name:
                raise Unsupported(f'tool call {call.index} got a second name {name!r} (had {call.name!r})')
        call.arguments.append(arguments)

    def position(self):
        """Where a provider tool comes in the turn: the UTF-16 length of the text before it, and how many
        opaque items and calls came before it."""
        return {
            'reasoning': utf16_length(''.join(self.reasoning)),
            'content': utf16_length(''.join(self.content)),
            'items': len(self.opaque),
            'calls': len(self.calls),
        }

    def provider_call(self, call_id, name, tool_type, tool_input, at=None):
        """A tool the provider ran itself; a second report of the same id replaces what it was given, not
        where its first report came (`at`, now unless said)."""
        for call in self.provider_calls:
            if call['id'] == call_id:
                call.update({'name': name, 'type': tool_type, 'input': tool_input})
                return
        at = at if at is not None else self.position()
        self.provider_calls.append({'id': call_id, 'name': name, 'type': tool_type, 'input': tool_input, 'at': at})

    def provider_result(self, call_id, result):
        """What a tool the provider ran gave back, joined to its call by id."""
        for call in self.provider_calls:
            if call['id'] == call_id:
                call['result'] = result
                return
        raise Unsupported(f'a provider tool result for an unknown call {call_id!r}')


def call_so_far(call, arguments):
    """A call as far as it came (a partial's, or one the token limit cut): `kind` only for a custom call."""
    shaped = {'kind': call.kind} if call.kind else {}
    shaped.update({'index': call.index, 'id': call.id, 'name': call.name, 'arguments': arguments})
    return shaped


def joined(pieces):
    return ''.join(pieces) if pieces else None


# The parts of a choice (and of the Completion, choice 0's) present only when the stream carried them,
# in the order of the interface: after rawFinishReason in a choice, after reasoningTokens at the top.
OPTIONAL_PARTS = (
    'reasoningSignatures', 'incompleteToolCalls', 'logprobs', 'sources', 'audio', 'finishDetails', 'providerToolCalls', 'toolRequests',
    'opaqueItems'
)


class Assembly:
    def __init__(self, dialect):
        self.dialect = dialect
        self.id = None
        self.model = None
        self.choices = {}
        self.usage = None  # dict with keys prompt, completion, total, cached, reasoning
        self.sum_total = False  # Anthropic and Ollama: totalTokens = promptTokens + completionTokens
        self.timings = None
        self.reasoning_tokens = 0
        self.provider = None  # the namespace of providerMetadata: 'openai'
        self.metadata = {}  # fields of the envelope that the dialect does not map, the last value of each

    def choice(self, index):
        if index not in self.choices:
            self.choices[index] = ChoiceAcc(index)
        return self.choices[index]

    def take_id(self, value):
        if self.id is None and text_piece(value) is not None:
            self.id = value

    def take_model(self, value):
        if self.model is None and text_piece(value) is not None:
            self.model = value

    def merge_usage(self, fields):
        """Last value of each field wins; never summed. Fields absent from this report keep theirs."""
        fields = {key: value for key, value in fields.items() if is_number(value)}
        if not fields:
            return
        if self.usage is None:
            self.usage = {}
        self.usage.update(fields)

    def usage_json(self):
        if self.usage is None:
            return None
        u = self.usage
        total = u.get('total')
        if self.sum_total:
            total = u['prompt'] + u['completion'] if 'prompt' in u and 'completion' in u else None
        out = {
            'promptTokens': u.get('prompt'),
            'completionTokens': u.get('completion'),
            'totalTokens': total,
        }
        if 'cached' in u:
            out['cachedPromptTokens'] = u['cached']
        if 'cache_write' in u:
            out['cacheWritePromptTokens'] = u['cache_write']
        if 'reasoning' in u:
            out['reasoningTokens'] = u['reasoning']
        if 'audio_prompt' in u:
            out['audioPromptTokens'] = u['audio_prompt']
        if 'audio_completion' in u:
            out['audioCompletionTokens'] = u['audio_completion']
        return out

    def partial(self):
        """What choice 0 had assembled when the stream faulted."""
        choice = self.choices.get(0)
        if choice is None:
            return {'content': None, 'reasoning': None, 'toolCalls': []}
        return {
            'content': joined(choice.content),
            'reasoning': joined(choice.reasoning),
            'toolCalls': [
                call_so_far(call, ''.join(call.arguments))
                for call in choice.calls
            ],
        }

    def completion(self, normalize, missing_id=None):
        """The Completion. missing_id: what `id` is when the dialect has no ids at all (None: a fault)."""
        if self.id is None:
            if missing_id is None:
                raise Fault('ProtocolError', 'no chunk carried an id')
            completion_id = missing_id
        else:
            completion_id = self.id
        if 0 not in self.choices:
            raise Fault('StreamClosedEarlyError', 'no choice ever arrived')
        choices = []
        for index in sorted(self.choices):
            choice = self.choices[index]
            if choice.raw_finish is None:
                raise Fault('StreamClosedEarlyError', f'choice {index} never got a finish reason')
            # A choice the token limit ended may have its last call cut: kept apart, with its raw text.
            cut_by_limit = normalize(choice.raw_finish, False) == 'length'
            calls = []
            incomplete = []
            for call in choice.calls:
                arguments = ''.join(call.arguments)
                last = call is choice.calls[-1]
                if call.kind == 'custom':
                    whole = call.closed
                    args = arguments  # free-form text, never parsed
                else:
                    try:
                        args = {} if arguments == '' else parse_json(arguments)
                        whole = True
                    except ValueError:
                        whole = False
                if not whole:
                    if not (cut_by_limit and last):
                        raise Unsupported(f'tool call {call.index} is not whole: {arguments!r}')
                    incomplete.append(call_so_far(call, arguments))
                    continue
                if call.name is None:
                    raise Fault('ProtocolError', f'tool call {call.index} of choice {index} never got a name')
                if call.id is None and missing_id is None:
                    raise Fault('ProtocolError', f'tool call {call.index} of choice {index} never got an id')
                shaped = {'kind': call.kind} if call.kind else {}
                shaped.update({
                    'index': call.index,
                    'id': call.id if call.id is not None else missing_id,
                    'name': call.name,
                    'arguments': arguments,
                    'args': args,
                })
                if call.namespace is not None:
                    shaped['namespace'] = call.namespace
                if call.metadata:
                    shaped['providerMetadata'] = {self.provider: dict(call.metadata)}
                calls.append(shaped)
            entry = {
                'index': index,
                'content': joined(choice.content),
                'reasoning': joined(choice.reasoning),
                'refusal': joined(choice.refusal),
                'toolCalls': calls,
                'finishReason': normalize(choice.raw_finish, bool(calls)),
                'rawFinishReason': choice.raw_finish,
            }
            # The optional parts, each only when the stream carried it, in the order of the interface.
            if choice.signatures:
                entry['reasoningSignatures'] = list(choice.signatures)
            if incomplete:
                entry['incompleteToolCalls'] = incomplete
            if choice.logprobs:
                entry['logprobs'] = {'content': choice.logprobs.get('content'), 'refusal': choice.logprobs.get('refusal')}
            if choice.sources:
                entry['sources'] = list(choice.sources)
            if choice.audio is not None:
                audio = choice.audio
                entry['audio'] = {
                    'id': audio['id'],
                    'data': ''.join(audio['data']),
                    'transcript': ''.join(audio['transcript']),
                    'expiresAt': audio['expiresAt'],
                }
            if choice.finish_details:
                entry['finishDetails'] = dict(choice.finish_details)
            if choice.provider_calls:
                entry['providerToolCalls'] = [dict(call) for call in choice.provider_calls]
            if choice.tool_requests:
                entry['toolRequests'] = [dict(request) for request in choice.tool_requests]
            if choice.opaque:
                entry['opaqueItems'] = [dict(item) for item in choice.opaque]
            if choice.metadata:
                entry['providerMetadata'] = {self.provider: dict(choice.metadata)}
            choices.append(entry)
        first = choices[0] if choices[0]['index'] == 0 else None
        if first is None:
            raise Unsupported('choice 0 is missing')
        result = {
            'id': completion_id,
            'model': self.model,
            'content': first['content'],
            'reasoning': first['reasoning'],
            'refusal': first['refusal'],
            'toolCalls': first['toolCalls'],
            'finishReason': first['finishReason'],
            'rawFinishReason': first['rawFinishReason'],
            'usage': self.usage_json(),
            'timings': self.timings,
            'reasoningTokens': self.reasoning_tokens,
        }
        for part in OPTIONAL_PARTS:
            if part in first:
                result[part] = first[part]
        result['choices'] = choices
        # The envelope's own: unlike the parts above, not choice 0's.
        if self.metadata:
            result['providerMetadata'] = {self.provider: dict(self.metadata)}
        return result


def normalizer(table, default='other'):
    """Maps a raw finish reason through `table`; `stop` with tool calls in the choice is tool_calls."""

    def normalize(raw, has_calls):
        value = table.get(raw, default)
        return 'tool_calls' if value == 'stop' and has_calls else value

    return normalize


def parse_payload(text, what):
    try:
        value = parse_json(text)
    except ValueError as error:
        raise Fault('ProtocolError', f'{what} is not JSON: {error}')
    if not isinstance(value, dict):
        raise Fault('ProtocolError', f'{what} is not a JSON object')
    return value


def run(assembly, body):
    """Runs a dialect body, turning a Fault into the error result with the partial."""
    try:
        completion = body()
    except Fault as fault:
        return {'dialect': assembly.dialect, 'error': fault.name, 'partial': assembly.partial()}
    return {'dialect': assembly.dialect, 'completion': completion}


# --------------------------------------------------------------------------------------------------
# OpenAI Chat Completions and compatibles

OPENAI_FINISH = normalizer({
    'stop': 'stop',
    'eos_token': 'stop',  # Hugging Face TGI
    'length': 'length',
    'tool_calls': 'tool_calls',
    'function_call': 'tool_calls',
    'content_filter': 'content_filter',
    'error': 'error',
})


# In usage.completion_tokens_details, what the usage counts: the rest (the predicted output's
# accepted_prediction_tokens and rejected_prediction_tokens) is kept on the reply.
OPENAI_MAPPED_COMPLETION_DETAILS = {'reasoning_tokens', 'audio_tokens', 'text_tokens'}


def openai_usage(assembly, usage, standard=True):
    """The usage of OpenAI's shape; `standard` for the chunk's own `usage` (not Groq's x_groq.usage),
    whose completion details beside the counts are kept on the reply."""
    if not isinstance(usage, dict):
        return
    prompt_details = usage.get('prompt_tokens_details')
    completion_details = usage.get('completion_tokens_details')
    prompt_details = prompt_details if isinstance(prompt_details, dict) else {}
    completion_details = completion_details if isinstance(completion_details, dict) else {}
    assembly.merge_usage({
        'prompt': usage.get('prompt_tokens'),
        'completion': usage.get('completion_tokens'),
        'total': usage.get('total_tokens'),
        'cached': prompt_details.get('cached_tokens'),
        'cache_write': prompt_details.get('cache_write_tokens'),
        'reasoning': completion_details.get('reasoning_tokens'),
        'audio_prompt': prompt_details.get('audio_tokens'),
        'audio_completion': completion_details.get('audio_tokens'),
    })
    if standard:
        keep_unmapped(assembly.metadata, completion_details, OPENAI_MAPPED_COMPLETION_DETAILS)


def is_token(entry):
    return isinstance(entry, dict) and isinstance(entry.get('token'), str) and is_number(entry.get('logprob'))


def openai_token(entry):
    """One token's log probability in OpenAI's shape: token, logprob, bytes (or None), alternatives."""
    def plain(item):
        raw = item.get('bytes')
        return {'token': item['token'], 'logprob': item['logprob'], 'bytes': raw if isinstance(raw, list) else None}
    out = plain(entry)
    out['top_logprobs'] = [plain(alt) for alt in entry.get('top_logprobs') or [] if is_token(alt)]
    return out


# What `openai-chat` reads at each level of a chunk (or knows to carry nothing: `object`, the padding
# `obfuscation`, `role`); every other field is kept as providerMetadata.openai where it arrived.
OPENAI_MAPPED_ENVELOPE = {'id', 'object', 'model', 'choices', 'usage', 'x_groq', 'timings', 'prompt_progress', 'obfuscation'}
OPENAI_MAPPED_CHOICE = {'index', 'delta', 'logprobs', 'finish_reason', 'text', 'message'}
OPENAI_MAPPED_DELTA = {'role', 'content', 'reasoning_content', 'reasoning', 'refusal', 'audio', 'annotations', 'tool_calls', 'function_call'}
OPENAI_MAPPED_CALL = {'index', 'id', 'type', 'function', 'custom'}


def keep_unmapped(into, fields, mapped):
    for key, value in fields.items():
        if key not in mapped:
            into[key] = value


def mistral_parts(parts):
    """Mistral's content as a list of chunks (its SDK's ContentChunk): the `text` of TextChunks is the
    content, the text chunks inside a ThinkChunk's `thinking` list the reasoning. Returns the delta's
    `content` and `reasoning_content` as plain strings (None when a kind is absent)."""
    content, reasoning = [], []
    for part in parts:
        if not isinstance(part, dict):
            raise Unsupported('a content part that is not an object')
        if part.get('type') == 'text' and set(part) == {'type', 'text'}:
            content.append(part['text'])
        elif part.get('type') == 'thinking' and set(part) == {'type', 'thinking'} and isinstance(part['thinking'], list):
            for inner in part['thinking']:
                if not (isinstance(inner, dict) and inner.get('type') == 'text' and set(inner) == {'type', 'text'}):
                    raise Unsupported('a thinking chunk holding more than text')
                reasoning.append(inner['text'])
        else:
            raise Unsupported(f'a content part this reader does not know: {sorted(part)}')
    return {'content': ''.join(content) if content else None, 'reasoning_content': ''.join(reasoning) if reasoning else None}


def openai_chunk(assembly, chunk):
    assembly.provider = 'openai'
    assembly.take_id(chunk.get('id'))
    assembly.take_model(chunk.get('model'))
    if isinstance(chunk.get('timings'), dict):
        assembly.timings = chunk['timings']
    carried_reasoning = False
    choices = chunk.get('choices')
    if isinstance(choices, list):
        for position, raw_choice in enumerate(choices):
            if not isinstance(raw_choice, dict):
                raise Unsupported('a choice that is not an object')
            index = raw_choice.get('index')
            key = index if is_int(index) else position
            had_output = key in assembly.choices and assembly.choices[key].has_output()
            choice = assembly.choice(key)
            keep_unmapped(choice.metadata, raw_choice, OPENAI_MAPPED_CHOICE)
            delta = raw_choice.get('delta')
            if not isinstance(delta, dict) and isinstance(raw_choice.get('text'), str):
                # The legacy Completions stream (`text_completion`): the text of the choice itself.
                delta = {'content': raw_choice['text']}
            if not isinstance(delta, dict):
                # A whole `message` and no delta: the reply in one chunk; after output, that output repeated.
                message = raw_choice.get('message')
                delta = message if isinstance(message, dict) and not had_output else {}
            if isinstance(delta.get('content'), list):
                delta = dict(delta, **mistral_parts(delta['content']))
            if delta.get('function_call') is not None:
                raise Unsupported('legacy function_call')
            reasoning_content = text_piece(delta.get('reasoning_content'))
            reasoning_other = text_piece(delta.get('reasoning'))
            if reasoning_content is not None and reasoning_other is not None:
                raise Unsupported('both reasoning_content and reasoning in one delta')
            reasoning = reasoning_content if reasoning_content is not None else reasoning_other
            if reasoning is None and isinstance(delta.get('reasoning_details'), list):
                # OpenRouter's entries: the text of reasoning.text, the summary of reasoning.summary.
                pieces = [d.get('text') if d.get('type') == 'reasoning.text' else d.get('summary')
                          for d in delta['reasoning_details'] if isinstance(d, dict) and d.get('type') in ('reasoning.text', 'reasoning.summary')]
                joined = ''.join(piece for piece in pieces if isinstance(piece, str))
                reasoning = joined or None
            if reasoning is not None:
                choice.reasoning.append(reasoning)
                carried_reasoning = True
            if isinstance(delta.get('reasoning_details'), list):
                # Each OpenRouter entry goes back whole, after the reasoning text of its delta.
                for detail in delta['reasoning_details']:
                    if isinstance(detail, dict):
                        detail_type = detail.get('type') if isinstance(detail.get('type'), str) else 'reasoning.unknown'
                        block = detail.get('index') if is_index(detail.get('index')) else None
                        choice.opaque_item('openrouter', 'reasoning-detail', detail_type, 'reasoning', detail, block=block)
            content = text_piece(delta.get('content'))
            if content is not None:
                choice.content.append(content)
            refusal = text_piece(delta.get('refusal'))
            if refusal is not None:
                choice.refusal.append(refusal)
            if is_thought_signature(delta.get('extra_content')):
                # Gemini's signature on a delta goes back with the text it came with.
                signed = 'content' if content is not None or reasoning is None else 'reasoning'
                choice.opaque_item('google', 'signature', 'extra_content', signed, delta['extra_content'])
            tool_calls = delta.get('tool_calls')
            if isinstance(tool_calls, list):
                for fragment in tool_calls:
                    if not isinstance(fragment, dict):
                        raise Unsupported('a tool call that is not an object')
                    function = fragment.get('function')
                    if not isinstance(function, dict):
                        function = {}
                    arguments = function.get('arguments')
                    if arguments is None:
                        arguments = ''
                    if not isinstance(arguments, str):
                        raise Unsupported('tool call arguments that are not a string')
                    raw_index = fragment.get('index')
                    call = choice.tool_fragment(
                        raw_index if is_int(raw_index) else None,
                        text_piece(fragment.get('id')),
                        text_piece(function.get('name')),
                        arguments,
                    )
                    if is_thought_signature(fragment.get('extra_content')):
                        choice.opaque_item('google', 'signature', 'extra_content', 'tool-call', fragment['extra_content'], call=call.index)
                    keep_unmapped(call.metadata, fragment, OPENAI_MAPPED_CALL)
            keep_unmapped(choice.metadata, delta, OPENAI_MAPPED_DELTA)
            logprobs = raw_choice.get('logprobs')
            if isinstance(logprobs, dict):
                for channel in ('content', 'refusal'):
                    tokens = [openai_token(entry) for entry in logprobs.get(channel) or [] if is_token(entry)]
                    if tokens:
                        choice.logprobs.setdefault(channel, []).extend(tokens)
            finish = raw_choice.get('finish_reason')
            if isinstance(finish, str):
                if finish == '':
                    raise Unsupported('an empty finish_reason')
                choice.raw_finish = finish
    if 'usage' in chunk and chunk['usage'] is None and assembly.usage is None:
        assembly.usage_owed = True  # usage comes last (include_usage): a stream that ends before it was cut
    if isinstance(chunk.get('usage'), dict):
        assembly.usage_owed = False
    openai_usage(assembly, chunk.get('usage'))
    keep_unmapped(assembly.metadata, chunk, OPENAI_MAPPED_ENVELOPE)
    x_groq = chunk.get('x_groq')
    if isinstance(x_groq, dict):
        openai_usage(assembly, x_groq.get('usage'), standard=False)
    # Perplexity's search_results ({title, url}) then citations (urls): url sources of choice 0, each url once.
    if chunk.get('search_results') is not None or chunk.get('citations') is not None:
        first = assembly.choice(0)
        seen = assembly.__dict__.setdefault('search_urls', set())
        pages = [(r.get('url'), r.get('title')) for r in (chunk.get('search_results') or []) if isinstance(r, dict)]
        pages += [(url, None) for url in (chunk.get('citations') or [])]
        for url, title in pages:
            if isinstance(url, str) and url and url not in seen:
                seen.add(url)
                first.sources.append({'kind': 'url', 'url': url, **({'title': title} if isinstance(title, str) and title else {})})
    if carried_reasoning and isinstance(assembly.timings, dict) and is_number(assembly.timings.get('predicted_n')):
        assembly.reasoning_tokens = assembly.timings['predicted_n']


def is_thought_signature(extra):
    """Gemini's `extra_content` (its OpenAI-compatible endpoint) holding a `google.thought_signature`."""
    google = extra.get('google') if isinstance(extra, dict) else None
    return isinstance(google, dict) and text_piece(google.get('thought_signature')) is not None


def read_openai_chat(raw):
    assembly = Assembly('openai-chat')

    def body():
        frames, cut_mid_line = read_sse(raw)
        done = False
        for number, frame in enumerate(frames, 1):
            if frame.data == '[DONE]':
                done = True
                break  # nothing valid follows [DONE]
            if frame.event == 'error':
                raise Fault('ProviderError', f'event {number} is an error event')
            chunk = parse_payload(frame.data, f'event {number}')
            if chunk.get('error') is not None:
                raise Fault('ProviderError', f'event {number} carries an error')
            x_groq = chunk.get('x_groq')
            if isinstance(x_groq, dict) and isinstance(x_groq.get('error'), str) and x_groq['error']:
                raise Fault('ProviderError', f'event {number} stops with x_groq.error')
            if chunk.get('id') == '':
                assembly.empty_id = True
            openai_chunk(assembly, chunk)
        if assembly.id is None and getattr(assembly, 'empty_id', False):
            assembly.id = ''
        if done:
            # [DONE] says the reply is whole: a choice that named no finish ends with stop.
            for choice in assembly.choices.values():
                if choice.raw_finish is None:
                    choice.raw_finish = 'stop'
        else:
            # No [DONE]: whole only when cut nowhere (no cut line, every choice finished, no usage owed).
            finished = assembly.choices and all(c.raw_finish is not None for c in assembly.choices.values())
            if cut_mid_line or not finished or getattr(assembly, 'usage_owed', False) or assembly.id is None:
                raise Fault('StreamClosedEarlyError', 'the line was cut' if cut_mid_line else 'no [DONE], and not whole without it')
        if cut_mid_line:
            raise Unsupported('a cut line after [DONE]')
        return assembly.completion(OPENAI_FINISH)

    return run(assembly, body)


# --------------------------------------------------------------------------------------------------
# Anthropic Messages

ANTHROPIC_FINISH = normalizer({
    'end_turn': 'stop',
    'stop_sequence': 'stop',
    'tool_use': 'tool_calls',
    'max_tokens': 'length',
    'model_context_window_exceeded': 'length',
    'refusal': 'content_filter',
})


ANTHROPIC_MAPPED_USAGE = {'input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens', 'output_tokens_details'}


def anthropic_usage(assembly, usage):
    """OpenAI's meaning: the prompt is all input, so Anthropic's three input counts (uncached, read from
    the cache, written to it) are added up, each the latest reported; the two cache counts are kept
    beside it as parts of it."""
    if not isinstance(usage, dict):
        return
    raw = assembly.__dict__.setdefault('anthropic_inputs', {})
    for key in ('input_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'):
        if is_number(usage.get(key)):
            raw[key] = usage[key]
    # What usage counts beside the tokens (server_tool_use, cache_creation's 5m/1h split, service_tier) is kept on the reply.
    keep_unmapped(assembly.metadata, usage, ANTHROPIC_MAPPED_USAGE)
    fields = {'completion': usage.get('output_tokens')}
    details = usage.get('output_tokens_details')
    if isinstance(details, dict):
        fields['reasoning'] = details.get('thinking_tokens')
    if any(is_number(usage.get(key)) for key in raw):
        fields['prompt'] = sum(raw.values())
        # A cache count the stream never gave stays absent (docs/dialects.md, "Usage").
        if 'cache_read_input_tokens' in raw:
            fields['cached'] = raw['cache_read_input_tokens']
        if 'cache_creation_input_tokens' in raw:
            fields['cache_write'] = raw['cache_creation_input_tokens']
    assembly.merge_usage(fields)


# What `anthropic` reads in each event, or knows to carry nothing: every event's and block's `type`
# (its kind), a block event's `index`, and in message_start's message its `role` (the assistant's),
# `content` (empty: the blocks bring it) and `stop_reason` (null until message_delta). Every other field
# is kept as providerMetadata.anthropic: an event's own, the message's and message_delta's `delta`
# (changes of the message) on the reply; a block's and its deltas' on the choice, or on the call for a
# tool_use block. Kinds of event, block and delta not listed keep nothing here.
ANTHROPIC_MAPPED_EVENT = {
    'message_start': {'type', 'message'},
    'content_block_start': {'type', 'index', 'content_block'},
    'content_block_delta': {'type', 'index', 'delta'},
    'content_block_stop': {'type', 'index'},
    'message_delta': {'type', 'delta', 'usage'},
    'message_stop': {'type'},
    'ping': {'type'},
}
ANTHROPIC_MAPPED_MESSAGE = {'id', 'type', 'role', 'model', 'content', 'stop_reason', 'usage'}
ANTHROPIC_MAPPED_MESSAGE_DELTA = {'stop_reason'}
ANTHROPIC_MAPPED_BLOCK = {
    'text': {'type', 'text', 'citations'},
    'thinking': {'type', 'thinking', 'signature'},
    'redacted_thinking': {'type', 'data'},
    'tool_use': {'type', 'id', 'name', 'input'},
}
ANTHROPIC_MAPPED_DELTA = {
    'text_delta': {'type', 'text'},
    'thinking_delta': {'type', 'thinking'},
    'signature_delta': {'type', 'signature'},
    'input_json_delta': {'type', 'partial_json'},
    'citations_delta': {'type', 'citation'},
}


class AnthropicBlocks:
    """What `anthropic` reads beyond text, thinking and tool_use blocks (docs/dialects.md, anthropic):
    `server_tool_use` and `mcp_tool_use` blocks are tools the provider ran (their input the
    input_json_delta fragments, parsed at the block's stop), each `*_tool_result` block their result
    (its `content`); a text block's citations are sources spanning that block; a block of any other
    type is kept whole under `items`, as it started, then its deltas. `read` returns True when it took
    the event, so that the plain reader does not see it."""

    SERVER_TOOLS = ('server_tool_use', 'mcp_tool_use')
    MAPPED_SERVER_TOOL = {'type', 'id', 'name', 'input'}
    MAPPED_RESULT = {'type', 'tool_use_id', 'content'}
    READ_BY_PLAIN_READER = ('text', 'thinking', 'redacted_thinking', 'tool_use')
    ALSO_READ_BY_PLAIN_READER = ('compaction',)

    def __init__(self, choice):
        self.choice = choice
        self.kinds = {}  # block index -> block type, for the blocks read here
        self.inputs = {}  # server tool block index -> (id, input fragments, block input)
        self.text_starts = {}  # text block index -> where its text begins in the content (UTF-16)
        self.citations = {}  # text block index -> its citations, in order
        self.whole_inputs = {}  # tool_use block index -> the input its start gave whole

    def content_length(self):
        return utf16_length(''.join(self.choice.content))

    def read(self, number, event):
        kind = event.get('type')
        index = event.get('index')
        if kind == 'content_block_start':
            block = event.get('content_block') or {}
            block_type = block.get('type')
            if block_type == 'text':
                self.text_starts[index] = self.content_length()
                self.citations[index] = [c for c in block.get('citations') or [] if isinstance(c, dict)]
                return False
            if block_type == 'tool_use' and isinstance(block.get('input'), dict) and block['input']:
                # A call whose input came whole at its start (a call made from code): no delta follows.
                self.whole_inputs[index] = block['input']
            if block_type in self.READ_BY_PLAIN_READER:
                return False
            self.kinds[index] = block_type
            if block_type in self.SERVER_TOOLS:
                self.inputs[index] = (text_piece(block.get('id')), text_piece(block.get('name')), [], block.get('input'))
                keep_unmapped(self.choice.metadata, block, self.MAPPED_SERVER_TOOL)
            elif isinstance(block_type, str) and block_type.endswith('_tool_result'):
                tool_id = text_piece(block.get('tool_use_id'))
                if tool_id is None:
                    raise Unsupported(f'event {number}: a tool result without tool_use_id')
                self.choice.provider_result(tool_id, block.get('content'))
                keep_unmapped(self.choice.metadata, block, self.MAPPED_RESULT)
            else:
                self.choice.keep_item(block)
            # A compaction block is kept whole here and also read by the plain reader: it is what the
            # next turn sends back (an opaque item at its stop).
            return block_type not in self.ALSO_READ_BY_PLAIN_READER
        if kind == 'content_block_delta':
            delta = event.get('delta') or {}
            if index in self.citations and delta.get('type') == 'citations_delta':
                if isinstance(delta.get('citation'), dict):
                    self.citations[index].append(delta['citation'])
                return False
            if index not in self.kinds:
                return False
            if index in self.inputs and delta.get('type') == 'input_json_delta':
                piece = delta.get('partial_json')
                self.inputs[index][2].append(piece if isinstance(piece, str) else '')
            else:
                self.choice.keep_item(delta)
            return self.kinds[index] not in self.ALSO_READ_BY_PLAIN_READER
        if kind == 'content_block_stop':
            if index in self.whole_inputs:
                call = self.choice.calls[self.choice.by_key[('block', index)]]
                whole = js_stringify(self.whole_inputs.pop(index))
                if ''.join(call.arguments) == '':
                    call.arguments = [whole]
                elif ''.join(call.arguments) != whole:
                    raise Unsupported(f'event {number}: a call whose deltas differ from its whole input')
            if index in self.citations:
                self.cite(index)
                return False
            if index in self.inputs:
                self.server_tool(number, index)
            return index in self.kinds and self.kinds[index] not in self.ALSO_READ_BY_PLAIN_READER
        return False

    def server_tool(self, number, index):
        tool_id, name, pieces, placeholder = self.inputs.pop(index)
        text = ''.join(pieces)
        if text == '':
            tool_input = placeholder if placeholder is not None else {}
        else:
            try:
                tool_input = parse_json(text)
            except ValueError:
                raise Unsupported(f'event {number}: a server tool input that is not JSON')
        if tool_id is None:
            raise Unsupported(f'event {number}: a server tool without an id')
        self.choice.provider_call(tool_id, name, self.kinds[index], tool_input)

    def cite(self, index):
        start, end = self.text_starts.pop(index), self.content_length()
        for citation in self.citations.pop(index):
            source = anthropic_source(citation)
            if source is not None:
                source['span'] = {'start': start, 'end': end}
                self.choice.sources.append(source)


def anthropic_source(citation):
    """The source a citation names: a web page, or a document of the request (by its index), or a
    search result (a document whose `source` is its URL). None for a location of another type."""
    kind = citation.get('type')
    if kind == 'web_search_result_location':
        url = text_piece(citation.get('url'))
        if url is None:
            return None
        source = {'kind': 'url', 'url': url}
    elif kind in ('char_location', 'page_location', 'content_block_location'):
        index = citation.get('document_index')
        if not is_int(index):
            return None
        source = {'kind': 'document', 'documentId': str(index)}
    elif kind == 'search_result_location':
        source = {'kind': 'document'}
        url = text_piece(citation.get('source'))
        if url is not None:
            source['url'] = url
    else:
        return None
    title = text_piece(citation.get('title')) or text_piece(citation.get('document_title'))
    if title is not None:
        source['title'] = title
    cited = text_piece(citation.get('cited_text'))
    if cited is not None:
        source['citedText'] = cited
    return source


def read_anthropic(raw):
    assembly = Assembly('anthropic')
    assembly.provider = 'anthropic'
    assembly.sum_total = True

    def body():
        frames, cut_mid_line = read_sse(raw)
        choice = assembly.choice(0)
        blocks = {}
        extra = AnthropicBlocks(choice)
        compactions = {}  # block index -> the compaction block so far
        text_starts = {}  # text block index -> where its text starts in the content
        text_signatures = {}  # text block index -> its signatures, sent at its stop

        def close_text(index):
            span = {'start': text_starts.get(index, 0), 'end': utf16_length(''.join(choice.content))}
            for signature in text_signatures.pop(index, []):
                choice.opaque_item('anthropic', 'signature', 'signature_delta', 'content', signature, block=index, span=span)

        done = False
        for number, frame in enumerate(frames, 1):
            event = parse_payload(frame.data, f'event {number}')
            kind = event.get('type')  # repeats the event name; robust when a proxy dropped `event:`
            if extra.read(number, event):
                continue
            if frame.event not in ('message', kind):
                raise Unsupported(f'event {number}: event name {frame.event!r} differs from type {kind!r}')
            if kind in ANTHROPIC_MAPPED_EVENT:
                keep_unmapped(assembly.metadata, event, ANTHROPIC_MAPPED_EVENT[kind])
            if kind == 'message_start':
                message = event.get('message') or {}
                assembly.take_id(message.get('id'))
                assembly.take_model(message.get('model'))
                anthropic_usage(assembly, message.get('usage'))
                keep_unmapped(assembly.metadata, message, ANTHROPIC_MAPPED_MESSAGE)
            elif kind == 'content_block_start':
                index = event.get('index')
                block = event.get('content_block') or {}
                blocks[index] = block.get('type')
                if block.get('type') in ANTHROPIC_MAPPED_BLOCK and block.get('type') != 'tool_use':
                    keep_unmapped(choice.metadata, block, ANTHROPIC_MAPPED_BLOCK[block.get('type')])
                if block.get('type') == 'text':
                    text_starts[index] = utf16_length(''.join(choice.content))
                    piece = text_piece(block.get('text'))
                    if piece is not None:
                        choice.content.append(piece)
                elif block.get('type') == 'thinking':
                    piece = text_piece(block.get('thinking'))
                    if piece is not None:
                        choice.reasoning.append(piece)
                    signature = text_piece(block.get('signature'))
                    if signature is not None:
                        choice.signatures.append(signature)
                        choice.opaque_item('anthropic', 'signature', 'thinking', 'reasoning', signature, block=index)
                elif block.get('type') == 'redacted_thinking':
                    data = text_piece(block.get('data'))
                    if data is not None:
                        choice.signatures.append(data)
                        choice.opaque_item('anthropic', 'redacted-reasoning', 'redacted_thinking', 'reasoning', data, block=index)
                elif block.get('type') == 'compaction':
                    compactions[index] = dict(block)  # sent back whole: gathered until its stop
                elif block.get('type') == 'tool_use':
                    # The `input: {}` placeholder is not the input: that is the partial_json fragments.
                    call = choice.tool_fragment(('block', index), text_piece(block.get('id')), text_piece(block.get('name')), '')
                    keep_unmapped(call.metadata, block, ANTHROPIC_MAPPED_BLOCK['tool_use'])
            elif kind == 'content_block_delta':
                index = event.get('index')
                delta = event.get('delta') or {}
                delta_type = delta.get('type')
                if delta_type in ANTHROPIC_MAPPED_DELTA and delta_type != 'input_json_delta':
                    keep_unmapped(choice.metadata, delta, ANTHROPIC_MAPPED_DELTA[delta_type])
                if delta_type == 'text_delta':
                    piece = text_piece(delta.get('text'))
                    if piece is not None:
                        choice.content.append(piece)
                elif delta_type == 'thinking_delta':
                    piece = text_piece(delta.get('thinking'))
                    if piece is not None:
                        choice.reasoning.append(piece)
                elif delta_type == 'input_json_delta':
                    if blocks.get(index) != 'tool_use':
                        raise Unsupported(f'event {number}: input_json_delta outside a tool_use block')
                    partial_json = delta.get('partial_json')
                    call = choice.tool_fragment(('block', index), None, None, partial_json if isinstance(partial_json, str) else '')
                    keep_unmapped(call.metadata, delta, ANTHROPIC_MAPPED_DELTA['input_json_delta'])
                elif delta_type == 'signature_delta':
                    signature = text_piece(delta.get('signature'))
                    if signature is not None and blocks.get(index) == 'text':
                        # A text block's signature signs that text: never a reasoning signature. It
                        # goes out at the block's stop, with the span of the block's text.
                        text_signatures.setdefault(index, []).append(signature)
                    elif signature is not None:
                        choice.signatures.append(signature)
                        choice.opaque_item('anthropic', 'signature', 'signature_delta', 'reasoning', signature, block=index)
                elif delta_type == 'compaction_delta' and index in compactions:
                    for key, value in delta.items():
                        if key == 'type' or value is None:
                            continue
                        before = compactions[index].get(key)
                        both_text = key == 'content' and isinstance(before, str) and isinstance(value, str)
                        compactions[index][key] = before + value if both_text else value
                # citations_delta carries no text of the completion.
            elif kind == 'content_block_stop':
                index = event.get('index')
                close_text(index)
                if index in compactions:
                    choice.opaque_item('anthropic', 'compaction', 'compaction', 'turn', compactions.pop(index), block=index)
            elif kind == 'message_delta':
                container = (event.get('delta') or {}).get('container')
                if isinstance(container, dict):
                    choice.opaque_item('anthropic', 'container', 'container', 'turn', container)
                stop_reason = (event.get('delta') or {}).get('stop_reason')
                if isinstance(stop_reason, str):
                    choice.raw_finish = stop_reason
                # The stop sequence that ended it, and a refusal's RefusalStopDetails {category, explanation}.
                stop_sequence = text_piece((event.get('delta') or {}).get('stop_sequence'))
                if stop_sequence:
                    choice.finish_details['stopSequence'] = stop_sequence
                details = (event.get('delta') or {}).get('stop_details')
                if isinstance(details, dict):
                    if text_piece(details.get('explanation')):
                        choice.finish_details['message'] = details['explanation']
                    if text_piece(details.get('category')):
                        choice.finish_details['category'] = details['category']
                keep_unmapped(assembly.metadata, event.get('delta') or {}, ANTHROPIC_MAPPED_MESSAGE_DELTA)
                anthropic_usage(assembly, event.get('usage'))
            elif kind == 'message_stop':
                for index in list(text_signatures):
                    close_text(index)  # a text block the message ended without its stop
                done = True
                break
            elif kind == 'error':
                raise Fault('ProviderError', f'event {number} is an error')
            # ping and unknown events change nothing.
        if not done:
            raise Fault('StreamClosedEarlyError', 'no message_stop')
        return assembly.completion(ANTHROPIC_FINISH)

    return run(assembly, body)


# --------------------------------------------------------------------------------------------------
# OpenAI Responses

RESPONSES_FINISH = normalizer({
    'completed': 'stop',
    'max_output_tokens': 'length',
    'content_filter': 'content_filter',
})


def responses_usage(assembly, usage):
    if isinstance(usage, dict):
        input_details = usage.get('input_tokens_details')
        output_details = usage.get('output_tokens_details')
        assembly.merge_usage({
            'prompt': usage.get('input_tokens'),
            'completion': usage.get('output_tokens'),
            'total': usage.get('total_tokens'),
            'cached': input_details.get('cached_tokens') if isinstance(input_details, dict) else None,
            'cache_write': input_details.get('cache_write_tokens') if isinstance(input_details, dict) else None,
            'reasoning': output_details.get('reasoning_tokens') if isinstance(output_details, dict) else None,
        })
        # The cache writes by time to live (cache_write_tokens_details) are kept on the reply.
        if isinstance(input_details, dict):
            keep_unmapped(assembly.metadata, input_details, {'cached_tokens', 'cache_write_tokens'})


def is_index(value):
    return is_int(value) and value >= 0


def responses_source(annotation):
    """The source an annotation of `response.output_text.annotation.added` names, and its span within its
    own content part (or None): a web page for `url_citation`, a file for the file citations (its id
    and file name). None for another type, or one without the URL or file id it is about."""
    kind = annotation.get('type')
    if kind == 'url_citation':
        url = text_piece(annotation.get('url'))
        if url is None:
            return None, None
        source = {'kind': 'url', 'url': url}
        title = text_piece(annotation.get('title'))
    elif kind in ('file_citation', 'file_path', 'container_file_citation'):
        file_id = text_piece(annotation.get('file_id'))
        if file_id is None:
            return None, None
        source = {'kind': 'document', 'documentId': file_id}
        title = text_piece(annotation.get('filename'))
    else:
        return None, None
    if title is not None:
        source['title'] = title
    # A file citation's `index` is a position in the text, not a span: only start/end make one.
    start, end = annotation.get('start_index'), annotation.get('end_index')
    span = (start, end) if is_index(start) and is_index(end) and end >= start else None
    return source, span


def without(item, fields):
    return {key: value for key, value in item.items() if key not in fields}


def only(item, fields):
    return {key: item[key] for key in fields if key in item}


def responses_provider_tool(item):
    """(name, input, result) of a finished item of a tool OpenAI runs itself; result None when the item
    holds none. None for any other item (function and custom calls are the program's to run)."""
    kind = item.get('type')
    if kind == 'web_search_call':
        # The action (search with its query, open_page, find_in_page) is what it was given; the pages
        # a search found, its `sources`, are what it gave back.
        action = item.get('action')
        if not isinstance(action, dict):
            return 'web_search', {}, None
        return 'web_search', without(action, ('sources',)), action.get('sources')
    if kind == 'file_search_call':
        return 'file_search', only(item, ('queries',)), item.get('results')
    if kind == 'code_interpreter_call':
        return 'code_interpreter', only(item, ('code', 'container_id')), item.get('outputs')
    if kind == 'image_generation_call':
        # Beside the base64 image the item says how it was made (revised_prompt, size, quality, ...).
        return 'image_generation', without(item, ('id', 'type', 'status', 'result')), item.get('result')
    if kind == 'mcp_call':
        error = item.get('error')
        result = {'error': error} if error is not None else item.get('output')
        return text_piece(item.get('name')) or 'mcp', only(item, ('server_label', 'arguments')), result
    return None


# What `openai-responses` reads at each level of an event (or knows to carry nothing: the `type`
# discriminators, the `sequence_number` count, the addresses `item_id`, `output_index`,
# `content_index`, `summary_index`, `annotation_index` and an item's own `id`, the padding
# `obfuscation`, the whole texts the `.done` events repeat, the `status` of an item or response, the
# `output` of a response, which repeats its items). Every other field is kept as providerMetadata.openai:
# a lifecycle event and its response on the reply; text events, parts, and items other than calls on
# the choice; a call's item and fragments on the call.
RESPONSES_LIFECYCLE = ('keepalive', 'response.created', 'response.queued', 'response.in_progress', 'response.completed', 'response.incomplete')
RESPONSES_MAPPED_LIFECYCLE_EVENT = {'type', 'sequence_number', 'response', 'timings'}
RESPONSES_MAPPED_RESPONSE = {'id', 'object', 'model', 'status', 'incomplete_details', 'error', 'output', 'usage', 'timings'}
RESPONSES_MAPPED_ITEM_EVENT = {'type', 'sequence_number', 'output_index', 'item'}
RESPONSES_TEXT_EVENTS = (
    'response.output_text.delta', 'response.output_text.done', 'response.output_text.annotation.added',
    'response.refusal.delta', 'response.refusal.done',
    'response.reasoning_summary_text.delta', 'response.reasoning_summary_text.done',
    'response.reasoning_text.delta', 'response.reasoning_text.done',
    'response.content_part.added', 'response.content_part.done',
    'response.reasoning_summary_part.added', 'response.reasoning_summary_part.done',
)
RESPONSES_MAPPED_TEXT_EVENT = {
    'type', 'sequence_number', 'item_id', 'output_index', 'content_index', 'summary_index', 'annotation_index',
    'delta', 'logprobs', 'obfuscation', 'annotation', 'part', 'text', 'refusal',
}
RESPONSES_MAPPED_PART = {'type', 'text', 'refusal', 'annotations', 'logprobs'}
RESPONSES_CALL_EVENTS = (
    'response.function_call_arguments.delta', 'response.function_call_arguments.done',
    'response.custom_tool_call_input.delta', 'response.custom_tool_call_input.done',
)
RESPONSES_MAPPED_CALL_EVENT = {'type', 'sequence_number', 'item_id', 'output_index', 'delta', 'obfuscation', 'arguments', 'input', 'name'}
RESPONSES_CALL_ITEMS = ('function_call', 'custom_tool_call')
# Per item type; an image generation item is read whole (all but its id, type, status and image is
# how the image was asked for), and an item of a type not read here is not looked into.
RESPONSES_MAPPED_ITEM = {
    'function_call': {'id', 'type', 'status', 'call_id', 'name', 'arguments', 'namespace'},
    'custom_tool_call': {'id', 'type', 'status', 'call_id', 'name', 'input', 'namespace'},
    'message': {'id', 'type', 'status', 'role', 'content'},
    'reasoning': {'id', 'type', 'status', 'summary', 'content', 'encrypted_content'},
    'web_search_call': {'id', 'type', 'status', 'action'},
    'file_search_call': {'id', 'type', 'status', 'queries', 'results'},
    'code_interpreter_call': {'id', 'type', 'status', 'code', 'container_id', 'outputs'},
    'mcp_call': {'id', 'type', 'status', 'name', 'server_label', 'arguments', 'output', 'error'},
}


# The item types read above; a finished item of any other type is kept whole under `items`.
RESPONSES_READ_ITEMS = ('message', 'reasoning', 'function_call', 'custom_tool_call', 'web_search_call',
                        'file_search_call', 'code_interpreter_call', 'image_generation_call', 'mcp_call')


def responses_namespace(call, item):
    namespace = text_piece(item.get('namespace'))
    if namespace is not None:
        call.namespace = namespace


def responses_whole_arguments(number, choice, key, arguments):
    """The whole arguments a `.done` event or the finished item repeats: the call's arguments when no
    delta brought any (some servers send them only whole), else they must be what the deltas made."""
    if key not in choice.by_key or not isinstance(arguments, str):
        return
    call = choice.calls[choice.by_key[key]]
    so_far = ''.join(call.arguments)
    if so_far == '':
        call.arguments = [arguments]
    elif so_far != arguments:
        raise Unsupported(f'event {number}: arguments that differ from their deltas')


def responses_tool_request(item):
    """A finished item that waits for the program, and is no function (docs/dialects.md, openai-responses):
    an MCP approval request (answered by its own id), or a built-in tool the program runs (answered by
    its call_id): apply_patch_call, computer_call, local_shell_call, a shell_call with no environment
    of the provider's, a tool_search_call the client executes. Its input: the item but for what names
    it. None for any other item."""
    kind = item.get('type')
    if kind == 'mcp_approval_request':
        request_id, request_kind = item.get('id'), 'approval'
    elif kind in ('apply_patch_call', 'computer_call', 'local_shell_call') or (
            kind == 'shell_call' and item.get('environment') is None) or (
            kind == 'tool_search_call' and item.get('execution') == 'client'):
        request_id, request_kind = item.get('call_id'), 'client-tool'
    else:
        return None
    if text_piece(request_id) is None:
        raise Unsupported(f'a {kind} without the id its answer names')
    return {
        'id': request_id,
        'type': kind,
        'kind': request_kind,
        'name': text_piece(item.get('name')),
        'input': without(item, ('id', 'type', 'status', 'call_id', 'name', 'execution')),
    }


def read_openai_responses(raw):
    assembly = Assembly('openai-responses')
    assembly.provider = 'openai'

    def body():
        frames, cut_mid_line = read_sse(raw)
        choice = assembly.choice(0)
        done = False
        # Where each content part (item, content index) begins in the choice's content, in UTF-16 code
        # units: an annotation's span counts from its own part, a source's from the start of the content.
        content_length = 0
        part_starts = {}
        annotated = set()
        # Custom calls whose input came as deltas; the code a code interpreter item streamed.
        custom_streamed = set()
        streamed_code = {}

        def part_of(event):
            item = text_piece(event.get('item_id'))
            return (item if item is not None else event.get('output_index'), event.get('content_index'))

        def close_custom(number, key, text):
            if key not in choice.by_key:
                raise Unsupported(f'event {number}: the end of an unknown custom call')
            call = choice.calls[choice.by_key[key]]
            call.closed = True
            if not isinstance(text, str):
                return
            if key not in custom_streamed:
                call.arguments = [text]  # no deltas came: the finished input is the whole of it
            elif ''.join(call.arguments) != text:
                raise Unsupported(f'event {number}: a custom call whose input differs from its deltas')

        def keep_fields(number, event, kind):
            """What the event, its response, its item or its part carry beside what is read, where it arrived."""
            response = event.get('response')
            if isinstance(response, dict):
                keep_unmapped(assembly.metadata, response, RESPONSES_MAPPED_RESPONSE)
            if kind in RESPONSES_LIFECYCLE:
                keep_unmapped(assembly.metadata, event, RESPONSES_MAPPED_LIFECYCLE_EVENT)
            elif kind in RESPONSES_TEXT_EVENTS:
                keep_unmapped(choice.metadata, event, RESPONSES_MAPPED_TEXT_EVENT)
                if isinstance(event.get('part'), dict):
                    keep_unmapped(choice.metadata, event['part'], RESPONSES_MAPPED_PART)
            elif kind in RESPONSES_CALL_EVENTS:
                key = ('item', event.get('item_id'))
                if key not in choice.by_key:
                    raise Unsupported(f'event {number}: a fragment of an unknown call')
                keep_unmapped(choice.calls[choice.by_key[key]].metadata, event, RESPONSES_MAPPED_CALL_EVENT)
            elif kind in ('response.output_item.added', 'response.output_item.done'):
                item = event.get('item') or {}
                if item.get('type') in RESPONSES_CALL_ITEMS:
                    key = ('item', item.get('id'))
                    if key not in choice.by_key:
                        raise Unsupported(f'event {number}: an unknown call item')
                    into = choice.calls[choice.by_key[key]].metadata
                else:
                    into = choice.metadata
                keep_unmapped(into, event, RESPONSES_MAPPED_ITEM_EVENT)
                if item.get('type') in RESPONSES_MAPPED_ITEM:
                    keep_unmapped(into, item, RESPONSES_MAPPED_ITEM[item['type']])

        for number, frame in enumerate(frames, 1):
            event = parse_payload(frame.data, f'event {number}')
            kind = event.get('type')
            if frame.event not in ('message', kind):
                raise Unsupported(f'event {number}: event name {frame.event!r} differs from type {kind!r}')
            if kind not in ('response.output_item.added', 'response.output_item.done'):
                keep_fields(number, event, kind)
            if kind in ('response.created', 'response.in_progress'):
                response = event.get('response') or {}
                assembly.take_id(response.get('id'))
                assembly.take_model(response.get('model'))
            elif kind == 'response.output_item.added':
                item = event.get('item') or {}
                if item.get('type') == 'function_call':
                    # call_id is the id a follow-up request answers; the item id only keys the fragments.
                    call = choice.tool_fragment(('item', item.get('id')), text_piece(item.get('call_id')), text_piece(item.get('name')), '')
                    responses_namespace(call, item)
                elif item.get('type') == 'custom_tool_call':
                    # A free-form call: its input is raw text, streamed as custom_tool_call_input deltas.
                    call = choice.tool_fragment(('item', item.get('id')), text_piece(item.get('call_id')), text_piece(item.get('name')), '', kind='custom')
                    responses_namespace(call, item)
                keep_fields(number, event, kind)
            elif kind == 'response.output_item.done':
                item = event.get('item') or {}
                block = event.get('output_index') if is_index(event.get('output_index')) else None
                if item.get('type') == 'reasoning':
                    encrypted = text_piece(item.get('encrypted_content'))
                    if encrypted is not None:
                        choice.signatures.append(encrypted)
                        # The item whole goes back when nothing is stored on the server.
                        choice.opaque_item('openai', 'encrypted-reasoning', 'reasoning', 'reasoning', item, block=block)
                elif item.get('type') in ('compaction', 'program'):
                    # A compaction item, a program with its replay fingerprint: back as they came.
                    choice.opaque_item('openai', item['type'], item['type'], 'turn', item, block=block)
                    choice.keep_item(item)  # and, like any item of a kind not read, under `items`
                elif item.get('type') == 'custom_tool_call':
                    key = ('item', item.get('id'))
                    choice.tool_fragment(key, text_piece(item.get('call_id')), text_piece(item.get('name')), '', kind='custom')
                    close_custom(number, key, item.get('input'))
                elif item.get('type') == 'function_call':
                    responses_whole_arguments(number, choice, ('item', item.get('id')), item.get('arguments'))
                elif responses_tool_request(item) is not None:
                    choice.tool_requests.append(responses_tool_request(item))
                elif item.get('type') not in RESPONSES_READ_ITEMS:
                    choice.keep_item(item)
                else:
                    tool = responses_provider_tool(item)
                    tool_id = text_piece(item.get('id'))
                    if tool is not None and tool_id is not None:
                        name, tool_input, result = tool
                        if item.get('type') == 'code_interpreter_call' and tool_id in streamed_code:
                            if streamed_code[tool_id] != item.get('code'):
                                raise Unsupported(f'event {number}: code that differs from its deltas')
                        choice.provider_call(tool_id, name, item['type'], tool_input)
                        if result is not None:
                            choice.provider_result(tool_id, result)
                keep_fields(number, event, kind)
            elif kind == 'response.custom_tool_call_input.delta':
                key = ('item', event.get('item_id'))
                if key not in choice.by_key:
                    raise Unsupported(f'event {number}: input for an unknown item')
                delta = event.get('delta')
                choice.tool_fragment(key, None, None, delta if isinstance(delta, str) else '')
                custom_streamed.add(key)
            elif kind == 'response.custom_tool_call_input.done':
                close_custom(number, ('item', event.get('item_id')), event.get('input'))
            elif kind == 'response.code_interpreter_call_code.delta':
                delta = event.get('delta')
                tool_id = event.get('item_id')
                streamed_code[tool_id] = streamed_code.get(tool_id, '') + (delta if isinstance(delta, str) else '')
            elif kind == 'response.output_text.delta':
                piece = text_piece(event.get('delta'))
                if piece is not None:
                    part_starts.setdefault(part_of(event), content_length)
                    content_length += utf16_length(piece)
                    choice.content.append(piece)
                logprobs = event.get('logprobs')
                tokens = [openai_token(entry) for entry in logprobs if is_token(entry)] if isinstance(logprobs, list) else []
                if tokens:
                    choice.logprobs.setdefault('content', []).extend(tokens)
            elif kind == 'response.output_text.annotation.added':
                # Servers repeat the annotations (in output_text.done, content_part.done, the finished
                # item, response.completed): only these events are read, each annotation_index once.
                part = part_of(event)
                annotation_index = event.get('annotation_index')
                if is_index(annotation_index):
                    if (part, annotation_index) in annotated:
                        continue
                    annotated.add((part, annotation_index))
                annotation = event.get('annotation')
                source, span = responses_source(annotation) if isinstance(annotation, dict) else (None, None)
                if source is not None:
                    if span is not None:
                        start = part_starts.get(part, content_length)  # a part with no text yet begins at the end
                        source['span'] = {'start': start + span[0], 'end': start + span[1]}
                    choice.sources.append(source)
            elif kind == 'response.refusal.delta':
                piece = text_piece(event.get('delta'))
                if piece is not None:
                    choice.refusal.append(piece)
            elif kind in ('response.reasoning_summary_text.delta', 'response.reasoning_text.delta'):
                piece = text_piece(event.get('delta'))
                if piece is not None:
                    choice.reasoning.append(piece)
            elif kind == 'response.function_call_arguments.done':
                responses_whole_arguments(number, choice, ('item', event.get('item_id')), event.get('arguments'))
            elif kind == 'response.function_call_arguments.delta':
                key = ('item', event.get('item_id'))
                if key not in choice.by_key:
                    raise Unsupported(f'event {number}: arguments for an unknown item')
                delta = event.get('delta')
                choice.tool_fragment(key, None, None, delta if isinstance(delta, str) else '')
            elif kind in ('response.completed', 'response.incomplete'):
                response = event.get('response') or {}
                assembly.take_id(response.get('id'))
                assembly.take_model(response.get('model'))
                if kind == 'response.completed':
                    choice.raw_finish = response.get('status') or 'completed'
                else:
                    details = response.get('incomplete_details') or {}
                    choice.raw_finish = details.get('reason') or 'incomplete'
                responses_usage(assembly, response.get('usage'))
                done = True
                break
            elif kind in ('response.failed', 'error'):
                raise Fault('ProviderError', f'event {number} is {kind}')
        if not done:
            raise Fault('StreamClosedEarlyError', 'no terminal response event')
        return assembly.completion(RESPONSES_FINISH)

    return run(assembly, body)


# --------------------------------------------------------------------------------------------------
# Gemini native (streamGenerateContent?alt=sse)

GEMINI_FINISH = normalizer({
    'STOP': 'stop',
    'MAX_TOKENS': 'length',
    'SAFETY': 'content_filter',
    'RECITATION': 'content_filter',
    'BLOCKLIST': 'content_filter',
    'PROHIBITED_CONTENT': 'content_filter',
    'SPII': 'content_filter',
    'IMAGE_SAFETY': 'content_filter',
    'MALFORMED_FUNCTION_CALL': 'error',
})


GEMINI_PATH_STEP = re.compile(r'\.([A-Za-z_][A-Za-z0-9_]*)|\[(0|[1-9][0-9]*)\]')


def gemini_put_partial(args, piece):
    """One Vertex `partialArgs` piece into the arguments object: a string's pieces are joined, any
    other value set; objects and arrays are made as the JSON Path first names them."""
    path = piece.get('jsonPath')
    if not isinstance(path, str) or not path.startswith('$'):
        raise Unsupported(f'partialArgs path {path!r}')
    steps, at = [], 1
    while at < len(path):
        match = GEMINI_PATH_STEP.match(path, at)
        if match is None:
            raise Unsupported(f'partialArgs path {path!r}')
        steps.append(match.group(1) if match.group(1) is not None else int(match.group(2)))
        at = match.end()
    if not steps or not isinstance(steps[0], str):
        raise Unsupported(f'partialArgs path {path!r}')
    if 'stringValue' in piece:
        value = piece['stringValue']
    elif 'numberValue' in piece:
        value = piece['numberValue']
    elif 'boolValue' in piece:
        value = piece['boolValue']
    elif 'nullValue' in piece:
        value = None
    else:
        return
    holder = args
    for step, following in zip(steps, steps[1:]):
        empty = [] if isinstance(following, int) else {}
        if isinstance(step, int):
            if step == len(holder):
                holder.append(empty)
            holder = holder[step]
        else:
            holder = holder.setdefault(step, empty)
    last = steps[-1]
    if isinstance(last, int):
        if last == len(holder):
            holder.append(value)
        elif isinstance(value, str) and isinstance(holder[last], str):
            holder[last] += value
        else:
            raise Unsupported(f'partialArgs path {path!r} written twice')
    elif isinstance(value, str) and isinstance(holder.get(last), str):
        holder[last] += value
    elif last in holder:
        raise Unsupported(f'partialArgs path {path!r} written twice')
    else:
        holder[last] = value


# What `gemini` reads at each level of a chunk (or knows to carry nothing: a content's `role`); every
# other field is kept as providerMetadata.google where it arrived: the chunk's on the reply (Vertex's
# `createTime`; `promptFeedback` whole, of which only `blockReason` is read), the candidate's, its
# content's, a part's and what its grounding holds beside the chunks and supports on the choice, and
# a function-call part's fields (its `thoughtSignature` too) and its functionCall's on the call.
GEMINI_MAPPED_ENVELOPE = {'candidates', 'usageMetadata', 'responseId', 'modelVersion'}
GEMINI_MAPPED_CANDIDATE = {'index', 'content', 'finishReason', 'groundingMetadata', 'urlContextMetadata'}
GEMINI_MAPPED_CONTENT = {'parts', 'role'}
GEMINI_MAPPED_PART = {'text', 'thought', 'thoughtSignature', 'functionCall', 'executableCode', 'codeExecutionResult'}
GEMINI_MAPPED_CALL_PART = {'functionCall'}
GEMINI_MAPPED_FUNCTION_CALL = {'id', 'name', 'args', 'partialArgs', 'willContinue'}
GEMINI_MAPPED_GROUNDING = {'groundingChunks', 'groundingSupports'}
GEMINI_MAPPED_URL_CONTEXT = {'urlMetadata'}
# A functionResponse part in a reply: the result of a call the Gemini API ran itself (a server-side MCP
# tool, `Tool.mcpServers`); `id` and `name` say which call, `response` is what the tool gave back.
GEMINI_MAPPED_FUNCTION_RESPONSE = {'id', 'name', 'response'}


MAX_PROVIDER_METADATA_CHARS = 256 * 1024


def gemini_answered_call(made, response):
    """The call of a choice that a functionResponse answers: the one with its id (FunctionResponse.id is
    the id of the call it answers); else the earliest unanswered call of its name that has no id, or,
    for a response without an id, of its name at all; None when it answers none."""
    open_calls = [call for call in made if 'result' not in call]
    wanted = text_piece(response.get('id'))
    name = text_piece(response.get('name'))
    by_id = [call for call in open_calls if wanted is not None and call['id'] == wanted]
    without_id = [call for call in open_calls if call['name'] == name and call['id'] is None]
    by_name = [call for call in open_calls if wanted is None and call['name'] == name]
    for found in (by_id, without_id, by_name):
        if found:
            return found[0]
    return None


def read_gemini(raw):
    assembly = Assembly('gemini')
    assembly.provider = 'google'
    # Vertex AI's streamed calls still open, per choice: their id, name and arguments so far.
    streaming = {}
    # Every function call of each choice, in arrival order: whose it is (the program's, or the server's
    # when a functionResponse of the same choice answers it later in the stream) is known at the end.
    calls_made = {}

    def body():
        frames, cut_mid_line = read_sse(raw)
        for number, frame in enumerate(frames, 1):
            chunk = parse_payload(frame.data, f'event {number}')
            if chunk.get('error') is not None:
                raise Fault('ProviderError', f'event {number} carries an error')
            assembly.take_id(chunk.get('responseId'))
            assembly.take_model(chunk.get('modelVersion'))
            if any(key in chunk for key in ('candidates', 'promptFeedback', 'usageMetadata', 'responseId', 'modelVersion')):
                keep_unmapped(assembly.metadata, chunk, GEMINI_MAPPED_ENVELOPE)
            else:
                raise Unsupported(f'event {number} is not a GenerateContentResponse')
            candidates = chunk.get('candidates')
            for position, candidate in enumerate(candidates if isinstance(candidates, list) else []):
                index = candidate.get('index')
                choice = assembly.choice(index if is_int(index) else position)
                keep_unmapped(choice.metadata, candidate, GEMINI_MAPPED_CANDIDATE)
                content = candidate.get('content') or {}
                keep_unmapped(choice.metadata, content, GEMINI_MAPPED_CONTENT)
                for key, mapped in (('groundingMetadata', GEMINI_MAPPED_GROUNDING), ('urlContextMetadata', GEMINI_MAPPED_URL_CONTEXT)):
                    if isinstance(candidate.get(key), dict):
                        keep_unmapped(choice.metadata, candidate[key], mapped)
                for part in content.get('parts') or []:
                    if isinstance(part, dict) and isinstance(part.get('functionResponse'), dict):
                        # Google's server-side MCP: the API calls the tool, sends its result back in the
                        # reply as a functionResponse, and the model goes on; a reply carries one for no
                        # other reason. It answers the call with its id, else the earliest of its name.
                        response = part['functionResponse']
                        answered = gemini_answered_call(calls_made.get(choice.index, []), response)
                        if answered is not None:
                            result = response.get('response')
                            answered['result'] = result if result is not None else {}
                            # The response makes the call the server's: that is where it came in the turn.
                            answered['at'] = choice.position()
                            keep_unmapped(choice.metadata, part, GEMINI_MAPPED_PART | {'functionResponse'})
                            keep_unmapped(choice.metadata, response, GEMINI_MAPPED_FUNCTION_RESPONSE)
                            continue
                    if part and not any(key in part for key in GEMINI_MAPPED_PART):
                        # An image, a file, a function response: kept whole, in arrival order, under `items`,
                        # unless it alone is past the cap on what is kept (docs/dialects.md, 256 Ki characters
                        # of JSON text): then nothing of it is, and the reply's bag says `$capped`.
                        if len(js_stringify(part)) > MAX_PROVIDER_METADATA_CHARS:
                            assembly.metadata['$capped'] = True
                        else:
                            choice.keep_item(part)
                        continue
                    signature = text_piece(part.get('thoughtSignature'))
                    if signature is not None:
                        choice.signatures.append(signature)
                    if 'functionCall' in part:
                        call = part['functionCall'] or {}
                        # The part's other fields and the call's belong to the call, its signature too.
                        metadata = {}
                        keep_unmapped(metadata, part, GEMINI_MAPPED_CALL_PART)
                        keep_unmapped(metadata, call, GEMINI_MAPPED_FUNCTION_CALL)
                        name = text_piece(call.get('name'))
                        call_id = text_piece(call.get('id'))
                        streamed = streaming.get(choice.index)
                        if streamed is None and (call.get('willContinue') is True or call.get('partialArgs')):
                            streamed = streaming[choice.index] = {'id': call_id, 'name': name, 'args': {}, 'metadata': {},
                                                                  'index': len(choice.calls)}
                        if signature is not None:
                            # A call's signature goes back on that call.
                            number = streamed['index'] if streamed is not None else len(choice.calls)
                            choice.opaque_item('google', 'signature', 'thoughtSignature', 'tool-call', signature, call=number)
                        if streamed is not None:
                            # Vertex AI streams the arguments: pieces at JSON Paths, until a part that
                            # does not say willContinue (often an empty functionCall).
                            streamed['metadata'].update(metadata)
                            for piece in call.get('partialArgs') or []:
                                gemini_put_partial(streamed['args'], piece)
                            if call.get('willContinue') is True:
                                continue
                            del streaming[choice.index]
                            call_id, name, args, metadata = streamed['id'], streamed['name'], streamed['args'], streamed['metadata']
                        else:
                            args = call.get('args')
                        calls_made.setdefault(choice.index, []).append({
                            'id': call_id, 'name': name, 'args': args if args is not None else {},
                            'metadata': metadata, 'part': part, 'call': call,
                        })
                    else:
                        keep_unmapped(choice.metadata, part, GEMINI_MAPPED_PART)
                        if 'text' in part:
                            piece = text_piece(part.get('text'))
                            if piece is not None:
                                (choice.reasoning if part.get('thought') is True else choice.content).append(piece)
                        if signature is not None:
                            # A thought's with the reasoning, a text part's with its text; another part's in the turn.
                            part_of_turn = 'turn'
                            if part.get('thought') is True:
                                part_of_turn = 'reasoning'
                            elif isinstance(part.get('text'), str):
                                part_of_turn = 'content'
                            choice.opaque_item('google', 'signature', 'thoughtSignature', part_of_turn, signature)
                token = text_piece(candidate.get('continuationToken'))
                if token is not None:
                    choice.opaque_item('google', 'continuation', 'continuationToken', 'turn', token)
                finish = candidate.get('finishReason')
                if isinstance(finish, str):
                    choice.raw_finish = finish
                    # The reply's finish is the last one: what a finish said goes with it (finishMessage).
                    message = text_piece(candidate.get('finishMessage'))
                    choice.finish_details = {'message': message} if message else {}
            usage = chunk.get('usageMetadata')
            if isinstance(usage, dict):
                # OpenAI's meaning: the completion is all output, the answer and the thinking; a count
                # the wire leaves out is 0 when the other came (protobuf JSON drops zeros).
                answer, thoughts = usage.get('candidatesTokenCount'), usage.get('thoughtsTokenCount')
                completion = None
                if is_number(answer) or is_number(thoughts):
                    completion = (answer if is_number(answer) else 0) + (thoughts if is_number(thoughts) else 0)
                assembly.merge_usage({
                    'prompt': usage.get('promptTokenCount'),
                    'completion': completion,
                    'total': usage.get('totalTokenCount'),
                    'cached': usage.get('cachedContentTokenCount'),
                    'reasoning': usage.get('thoughtsTokenCount'),
                })
        if streaming:
            raise Unsupported('a streamed function call never closed')
        for index, made in sorted(calls_made.items()):
            choice = assembly.choice(index)
            prefix = (assembly.id or 'gemini') + ('' if index == 0 else f'-choice-{index}')
            for call in made:
                if 'result' in call:
                    # The server's call: never the program's. Gemini names no ids; the library's
                    # documented rule numbers the server's calls of a choice apart from the program's.
                    call_id = call['id'] if call['id'] is not None else f'{prefix}-server-call-{len(choice.provider_calls)}'
                    choice.provider_call(call_id, call['name'], 'functionCall', call['args'], at=call['at'])
                    choice.provider_result(call_id, call['result'])
                    keep_unmapped(choice.metadata, call['part'], GEMINI_MAPPED_PART)
                    keep_unmapped(choice.metadata, call['call'], GEMINI_MAPPED_FUNCTION_CALL)
                    continue
                # Gemini native names no call ids: the library's documented rule makes a stable one
                # from the response id, the choice and the call's position among the program's calls.
                call_id = call['id'] if call['id'] is not None else f'{prefix}-call-{len(choice.calls)}'
                choice.whole_call(call_id, call['name'], js_stringify(call['args'])).metadata.update(call['metadata'])
        if cut_mid_line or not assembly.choices or any(c.raw_finish is None for c in assembly.choices.values()):
            raise Fault('StreamClosedEarlyError', 'no finishReason')
        # Gemini sends no tool call ids: they stay empty strings (the library does not invent them).
        return assembly.completion(GEMINI_FINISH, missing_id='' if assembly.id is not None else None)

    return run(assembly, body)


# --------------------------------------------------------------------------------------------------
# Ollama native (/api/chat, NDJSON)

OLLAMA_FINISH = normalizer({'stop': 'stop', 'length': 'length'})

# What `ollama` reads at each level of a line, or knows to carry nothing: `created_at` is the time of
# each line, `role` always the assistant's, `function.index` the call's place in its list. Every other
# field is kept as providerMetadata.ollama where it arrived (the done line's durations, `context`).
OLLAMA_MAPPED_LINE = {'model', 'created_at', 'message', 'response', 'thinking', 'logprobs', 'done', 'done_reason',
                      'prompt_eval_count', 'eval_count'}
OLLAMA_MAPPED_MESSAGE = {'role', 'content', 'thinking', 'tool_calls'}
OLLAMA_MAPPED_CALL = {'id', 'type', 'function'}
OLLAMA_MAPPED_FUNCTION = {'index', 'name', 'arguments'}


def read_ollama(raw):
    assembly = Assembly('ollama')
    assembly.sum_total = True
    assembly.provider = 'ollama'

    def body():
        lines, cut_mid_line = read_ndjson(raw)
        choice = assembly.choice(0)
        done = False
        for number, line in enumerate(lines, 1):
            obj = parse_payload(line, f'line {number}')
            if obj.get('error') is not None:
                raise Fault('ProviderError', f'line {number} is an error')
            assembly.take_model(obj.get('model'))
            message = obj.get('message') or {}
            keep_unmapped(choice.metadata, message, OLLAMA_MAPPED_MESSAGE)
            keep_unmapped(assembly.metadata, obj, OLLAMA_MAPPED_LINE)
            piece = text_piece(message.get('thinking'))
            if piece is not None:
                choice.reasoning.append(piece)
            piece = text_piece(message.get('content'))
            if piece is not None:
                choice.content.append(piece)
            # /api/generate: the text and the thinking are the line's own `response` and `thinking`.
            piece = text_piece(obj.get('thinking'))
            if piece is not None:
                choice.reasoning.append(piece)
            piece = text_piece(obj.get('response'))
            if piece is not None:
                choice.content.append(piece)
            for call in message.get('tool_calls') or []:
                function = call.get('function') or {}
                arguments = function.get('arguments')
                if not isinstance(arguments, str):
                    arguments = js_stringify(arguments if arguments is not None else {})
                made = choice.whole_call(text_piece(call.get('id')), text_piece(function.get('name')), arguments)
                keep_unmapped(made.metadata, call, OLLAMA_MAPPED_CALL)
                keep_unmapped(made.metadata, function, OLLAMA_MAPPED_FUNCTION)
            if obj.get('done') is True:
                choice.raw_finish = obj.get('done_reason') or 'stop'
                assembly.merge_usage({'prompt': obj.get('prompt_eval_count'), 'completion': obj.get('eval_count')})
                done = True
                break
        if not done:
            raise Fault('StreamClosedEarlyError', 'no done:true object')
        # Ollama's native format has no completion id: the id is the empty string.
        return assembly.completion(OLLAMA_FINISH, missing_id='')

    return run(assembly, body)


# --------------------------------------------------------------------------------------------------
# llama.cpp native /completion

LLAMACPP_FINISH = normalizer({'eos': 'stop', 'word': 'stop', 'limit': 'length'})

# What `llamacpp-completion` reads in a chunk, or knows to carry nothing: `tokens` holds the ids of the
# chunk's own text, a new value in every chunk. Every other field (`id_slot`, the last chunk's
# `generation_settings`, `prompt`, `truncated`, `stopping_word`, `tokens_cached`, ...) is kept as
# providerMetadata.llamacpp of the reply, the last value of each.
LLAMACPP_MAPPED_CHUNK = {'index', 'content', 'tokens', 'stop', 'model', 'prompt_progress', 'completion_probabilities',
                         'stop_type', 'stopped_eos', 'stopped_word', 'stopped_limit', 'tokens_evaluated',
                         'tokens_predicted', 'timings'}


def read_llamacpp_completion(raw):
    assembly = Assembly('llamacpp-completion')
    assembly.sum_total = True
    assembly.provider = 'llamacpp'

    def body():
        frames, cut_mid_line = read_sse(raw)
        choice = assembly.choice(0)
        done = False
        for number, frame in enumerate(frames, 1):
            chunk = parse_payload(frame.data, f'event {number}')
            if chunk.get('error') is not None:
                raise Fault('ProviderError', f'event {number} carries an error')
            assembly.take_model(chunk.get('model'))
            keep_unmapped(assembly.metadata, chunk, LLAMACPP_MAPPED_CHUNK)
            if isinstance(chunk.get('timings'), dict):
                assembly.timings = chunk['timings']
            piece = text_piece(chunk.get('content'))
            if piece is not None:
                choice.content.append(piece)
            if chunk.get('stop') is True:
                choice.raw_finish = chunk.get('stop_type') or 'none'
                assembly.merge_usage({'prompt': chunk.get('tokens_evaluated'), 'completion': chunk.get('tokens_predicted')})
                done = True
                break
        if not done:
            raise Fault('StreamClosedEarlyError', 'no chunk with stop:true')
        # The native endpoint sends no completion id: the id is the empty string.
        return assembly.completion(LLAMACPP_FINISH, missing_id='')

    return run(assembly, body)


# --------------------------------------------------------------------------------------------------
# Typed events (the text / tool_call_start / tool_call_delta / tool_call_end format, then [DONE])

TYPED_EVENTS_FINISH = normalizer({'stop': 'stop', 'tool_calls': 'tool_calls'})

# What each event of the format says (its `type` names it); every other field is kept as
# providerMetadata['typed-events']: a text event's on the choice, a call event's on its call.
TYPED_MAPPED_TEXT = {'type', 'delta'}
TYPED_MAPPED_CALL_START = {'type', 'index', 'id', 'name'}
TYPED_MAPPED_CALL_DELTA = {'type', 'index', 'args'}
TYPED_MAPPED_CALL_END = {'type', 'index'}


def read_typed_events(raw):
    assembly = Assembly('typed-events')
    assembly.provider = 'typed-events'

    def body():
        frames, cut_mid_line = read_sse(raw)
        choice = assembly.choice(0)
        open_calls = set()
        done = False
        for number, frame in enumerate(frames, 1):
            if frame.data == '[DONE]':
                done = True
                break
            event = parse_payload(frame.data, f'event {number}')
            kind = event.get('type')
            if kind == 'text':
                piece = text_piece(event.get('delta'))
                if piece is not None:
                    choice.content.append(piece)
                keep_unmapped(choice.metadata, event, TYPED_MAPPED_TEXT)
            elif kind == 'tool_call_start':
                call = choice.tool_fragment(('index', event.get('index')), text_piece(event.get('id')), text_piece(event.get('name')), '')
                open_calls.add(event.get('index'))
                keep_unmapped(call.metadata, event, TYPED_MAPPED_CALL_START)
            elif kind == 'tool_call_delta':
                if event.get('index') not in open_calls:
                    raise Fault('ProtocolError', f'event {number}: a delta for a call never started')
                call = choice.tool_fragment(('index', event.get('index')), None, None, event.get('args') or '')
                keep_unmapped(call.metadata, event, TYPED_MAPPED_CALL_DELTA)
            elif kind == 'tool_call_end':
                if event.get('index') in open_calls:
                    call = choice.calls[choice.by_key[('index', event.get('index'))]]
                    keep_unmapped(call.metadata, event, TYPED_MAPPED_CALL_END)
                open_calls.discard(event.get('index'))
        if cut_mid_line or not done or open_calls:
            raise Fault('StreamClosedEarlyError', 'no [DONE], or a call never ended')
        choice.raw_finish = 'tool_calls' if choice.calls else 'stop'
        # The format has no ids and no model: the completion id is the empty string.
        return assembly.completion(TYPED_EVENTS_FINISH, missing_id='')

    return run(assembly, body)


# --------------------------------------------------------------------------------------------------
# Cohere v2 chat stream

COHERE_FINISH = normalizer({
    'COMPLETE': 'stop',
    'STOP_SEQUENCE': 'stop',
    'MAX_TOKENS': 'length',
    'TOOL_CALL': 'tool_calls',
    'ERROR': 'error',
    'TIMEOUT': 'error',
})
COHERE_MAPPED_CALL = {'id', 'type', 'function'}
COHERE_MAPPED_FUNCTION = {'name', 'arguments'}
COHERE_MAPPED_BLOCK = {'type', 'text', 'thinking'}


def read_cohere(raw):
    """Cohere's v2 chat stream (its SDK's StreamedChatResponseV2): the tool plan and `thinking` blocks
    are reasoning, `text` blocks the content, tool calls by `tool-call-start` (a new call each) and the
    argument text of `tool-call-delta`s, `message-end`'s finish and usage (`tokens`; `billed_units` is
    what Cohere bills, not what the model read; total = input + output). No model on the wire. Citations
    are not read here: a stream with them is not given an expectation."""
    assembly = Assembly('cohere')
    assembly.provider = 'cohere'
    assembly.sum_total = True

    def body():
        frames, cut_mid_line = read_sse(raw)
        choice = assembly.choice(0)
        blocks = {}
        calls = {}  # a call event's index -> the key of the call it started last
        done = False
        for number, frame in enumerate(frames, 1):
            event = parse_payload(frame.data, f'event {number}')
            kind = event.get('type')
            if frame.event not in ('message', kind):
                raise Unsupported(f'event {number}: event name {frame.event!r} differs from type {kind!r}')
            message = ((event.get('delta') or {}).get('message')) or {}
            index = event.get('index')
            if kind == 'message-start':
                assembly.take_id(event.get('id'))
            elif kind == 'tool-plan-delta':
                piece = text_piece(message.get('tool_plan'))
                if piece is not None:
                    choice.reasoning.append(piece)
            elif kind in ('content-start', 'content-delta'):
                content = message.get('content') or {}
                if kind == 'content-start':
                    blocks[index] = content.get('type')
                block_type = blocks.get(index)
                if block_type not in ('text', 'thinking'):
                    raise Unsupported(f'event {number}: a content block of type {block_type!r}')
                keep_unmapped(choice.metadata, content, COHERE_MAPPED_BLOCK)
                piece = text_piece(content.get(block_type))
                if piece is not None:
                    (choice.content if block_type == 'text' else choice.reasoning).append(piece)
            elif kind in ('tool-call-start', 'tool-call-delta'):
                fragment = message.get('tool_calls') or {}
                function = fragment.get('function') or {}
                if kind == 'tool-call-start':
                    calls[index] = ('call', number)
                elif index not in calls:
                    raise Unsupported(f'event {number}: a delta of a call never started')
                arguments = function.get('arguments')
                call = choice.tool_fragment(calls[index], text_piece(fragment.get('id')), text_piece(function.get('name')),
                                            arguments if isinstance(arguments, str) else '')
                keep_unmapped(call.metadata, fragment, COHERE_MAPPED_CALL)
                keep_unmapped(call.metadata, function, COHERE_MAPPED_FUNCTION)
            elif kind == 'message-end':
                delta = event.get('delta') or {}
                if delta.get('error') is not None:
                    raise Fault('ProviderError', f'event {number} ends with an error')
                finish = delta.get('finish_reason')
                if not isinstance(finish, str):
                    raise Fault('ProtocolError', f'event {number}: message-end without a finish_reason')
                choice.raw_finish = finish
                usage = delta.get('usage') or {}
                tokens = usage.get('tokens') or {}
                assembly.merge_usage({'prompt': tokens.get('input_tokens'), 'completion': tokens.get('output_tokens'),
                                      'cached': usage.get('cached_tokens')})
                done = True
                break
            elif kind in ('citation-start', 'citation-end'):
                raise Unsupported('citations')
            # content-end, tool-call-end and debug events carry nothing read here.
        if cut_mid_line or not done:
            raise Fault('StreamClosedEarlyError', 'no message-end')
        return assembly.completion(COHERE_FINISH)

    return run(assembly, body)


# --------------------------------------------------------------------------------------------------
# Amazon Bedrock ConverseStream (AWS's binary event stream)


def read_aws_event_stream(raw):
    """Returns (messages, cut): each message as (headers dict, payload bytes), every CRC-32 checked;
    cut when the bytes stop inside a message. Follows AWS's event stream encoding: a prelude (total
    length, headers length, CRC-32 of the two), headers (name length, name, type, value), the payload,
    a CRC-32 of everything before it."""
    messages, at = [], 0
    while at < len(raw):
        if len(raw) - at < 12:
            return messages, True
        total, headers_length, prelude_crc = struct.unpack_from('>III', raw, at)
        if zlib.crc32(raw[at:at + 8]) & 0xFFFFFFFF != prelude_crc or total < 16 or headers_length > total - 16:
            raise Unsupported(f'a broken prelude at byte {at}')
        if len(raw) - at < total:
            return messages, True
        message = raw[at:at + total]
        if zlib.crc32(message[:-4]) & 0xFFFFFFFF != struct.unpack_from('>I', message, total - 4)[0]:
            raise Unsupported(f'a broken message CRC at byte {at}')
        headers, h = {}, 12
        while h < 12 + headers_length:
            name_length = message[h]
            name = message[h + 1:h + 1 + name_length].decode('utf-8')
            kind = message[h + 1 + name_length]
            h += 2 + name_length
            if kind == 7 or kind == 6:
                (length,) = struct.unpack_from('>H', message, h)
                value = message[h + 2:h + 2 + length]
                headers[name] = value.decode('utf-8') if kind == 7 else value
                h += 2 + length
            else:
                raise Unsupported(f'a header of type {kind}')
        messages.append((headers, message[12 + headers_length:total - 4]))
        at += total
    return messages, False


BEDROCK_FINISH = normalizer({
    'end_turn': 'stop',
    'stop_sequence': 'stop',
    'tool_use': 'tool_calls',
    'max_tokens': 'length',
    'guardrail_intervened': 'content_filter',
    'content_filtered': 'content_filter',
})
BEDROCK_MAPPED_METADATA = {'usage'}
BEDROCK_MAPPED_STOP = {'stopReason'}
BEDROCK_MAPPED_TOOL_USE = {'toolUseId', 'name'}


def read_bedrock_converse(raw):
    """ConverseStream: text, toolUse (its input fragments joined), reasoningContent (text; signature and
    redactedContent as reasoning signatures), messageStop's stopReason, metadata's usage (prompt = input
    + cache read + cache write, total = prompt + output). No id (''), no model. Ends at messageStop."""
    assembly = Assembly('bedrock-converse')
    assembly.provider = 'bedrock'
    assembly.sum_total = True

    def body():
        messages, cut = read_aws_event_stream(raw)
        choice = assembly.choice(0)
        stopped = False
        for number, (headers, payload) in enumerate(messages, 1):
            message_type = headers.get(':message-type')
            if message_type in ('exception', 'error'):
                raise Fault('ProviderError', f'message {number} is an {message_type}')
            if message_type != 'event':
                raise Unsupported(f'message {number} of type {message_type!r}')
            kind = headers.get(':event-type')
            event = parse_payload(payload.decode('utf-8'), f'message {number}')
            if stopped and kind != 'metadata':
                raise Unsupported(f'message {number}: {kind} after messageStop')
            if kind == 'messageStart':
                continue
            index = event.get('contentBlockIndex')
            if kind == 'contentBlockStart':
                start = event.get('start') or {}
                tool = start.get('toolUse')
                if isinstance(tool, dict):
                    if tool.get('type') is not None:
                        raise Unsupported(f'message {number}: a toolUse of type {tool.get("type")!r}')
                    call = choice.tool_fragment(('block', index), text_piece(tool.get('toolUseId')), text_piece(tool.get('name')), '')
                    keep_unmapped(call.metadata, tool, BEDROCK_MAPPED_TOOL_USE)
                elif start:
                    choice.keep_item(start)
            elif kind == 'contentBlockDelta':
                delta = event.get('delta') or {}
                for key, value in delta.items():
                    if key == 'text':
                        piece = text_piece(value)
                        if piece is not None:
                            choice.content.append(piece)
                    elif key == 'toolUse' and isinstance(value, dict):
                        if ('block', index) not in choice.by_key:
                            raise Unsupported(f'message {number}: toolUse input for a block that never started')
                        piece = value.get('input')
                        choice.tool_fragment(('block', index), None, None, piece if isinstance(piece, str) else '')
                    elif key == 'reasoningContent' and isinstance(value, dict):
                        piece = text_piece(value.get('text'))
                        if piece is not None:
                            choice.reasoning.append(piece)
                        for opaque, opaque_kind in (('signature', 'signature'), ('redactedContent', 'redacted-reasoning')):
                            if text_piece(value.get(opaque)) is not None:
                                choice.signatures.append(value[opaque])
                                # Sent back with the reasoning it signs (reasoningContent in the next turn).
                                block = index if is_index(index) else None
                                choice.opaque_item('bedrock', opaque_kind, opaque, 'reasoning', value[opaque], block=block)
                    else:
                        choice.keep_item({key: value})
            elif kind == 'messageStop':
                if isinstance(event.get('stopReason'), str):
                    choice.raw_finish = event['stopReason']
                keep_unmapped(choice.metadata, event, BEDROCK_MAPPED_STOP)
                stopped = True
            elif kind == 'metadata':
                usage = event.get('usage') or {}
                reads = {key: usage.get(key) for key in ('inputTokens', 'cacheReadInputTokens', 'cacheWriteInputTokens') if is_number(usage.get(key))}
                fields = {'completion': usage.get('outputTokens')}
                if reads:
                    fields['prompt'] = sum(reads.values())
                    if 'cacheReadInputTokens' in reads:
                        fields['cached'] = reads['cacheReadInputTokens']
                    if 'cacheWriteInputTokens' in reads:
                        fields['cache_write'] = reads['cacheWriteInputTokens']
                assembly.merge_usage(fields)
                keep_unmapped(assembly.metadata, event, BEDROCK_MAPPED_METADATA)
            # contentBlockStop closes a block; nothing to read.
        if cut or not stopped:
            raise Fault('StreamClosedEarlyError', 'no messageStop')
        return assembly.completion(BEDROCK_FINISH, missing_id='')

    return run(assembly, body)


# --------------------------------------------------------------------------------------------------
# OpenAI Realtime: the server events of one response.create, one JSON message a line

REALTIME_FINISH = normalizer({'completed': 'stop', 'max_output_tokens': 'length', 'content_filter': 'content_filter'})

# What every Realtime server event carries to address it (RealtimeServerEvent in openai 7.x): nothing of
# the reply. A delta's text is read where the event is.
REALTIME_MAPPED_EVENT = {'type', 'event_id', 'response_id', 'item_id', 'output_index', 'content_index', 'delta'}
# RealtimeResponse: read for the start, the finish and the usage; `output` repeats the items that streamed.
# The rest (conversation_id, output_modalities, max_output_tokens, audio, metadata) is kept on the reply.
REALTIME_MAPPED_RESPONSE = {'id', 'object', 'status', 'status_details', 'usage', 'output'}
REALTIME_MAPPED_CALL_ITEM = {'id', 'object', 'type', 'status', 'call_id', 'name', 'arguments'}
# Events that repeat text already read, or frame it: nothing of them is kept.
REALTIME_PART_EVENTS = {'response.content_part.added', 'response.content_part.done', 'response.output_text.done',
                        'response.output_audio.done', 'response.output_audio_transcript.done'}


def read_openai_realtime(raw):
    assembly = Assembly('openai-realtime')
    assembly.provider = 'openai'

    def body():
        lines, cut_mid_line = read_ndjson(raw)
        choice = assembly.choice(0)
        streamed = set()  # item ids of calls whose arguments came as deltas: the whole text after them repeats them
        done = False

        def call_of(number, key):
            if ('item', key) not in choice.by_key:
                raise Fault('ProtocolError', f'line {number}: arguments of a call no item announced')
            return choice.calls[choice.by_key[('item', key)]]

        for number, line in enumerate(lines, 1):
            event = parse_payload(line, f'line {number}')
            kind = event.get('type')
            if kind == 'error':
                raise Fault('ProviderError', f'line {number} is an error event')
            response = event.get('response')
            if kind in ('response.created', 'response.done'):
                if not isinstance(response, dict):
                    raise Fault('ProtocolError', f'line {number}: no response object')
                assembly.take_id(response.get('id'))
                keep_unmapped(assembly.metadata, response, REALTIME_MAPPED_RESPONSE)
                keep_unmapped(assembly.metadata, event, REALTIME_MAPPED_EVENT | {'response'})
            if kind == 'response.output_text.delta':
                piece = text_piece(event.get('delta'))
                if piece is not None:
                    choice.content.append(piece)
                keep_unmapped(choice.metadata, event, REALTIME_MAPPED_EVENT)
            elif kind in ('response.output_audio_transcript.delta', 'response.output_audio.delta'):
                piece = text_piece(event.get('delta'))
                if piece is not None:
                    if choice.audio is None:
                        choice.audio = {'id': None, 'data': [], 'transcript': [], 'expiresAt': None}
                    if text_piece(event.get('item_id')) is not None:
                        choice.audio['id'] = event['item_id']
                    field = 'data' if kind == 'response.output_audio.delta' else 'transcript'
                    choice.audio[field].append(piece)
                keep_unmapped(choice.metadata, event, REALTIME_MAPPED_EVENT)
            elif kind in ('response.output_item.added', 'response.output_item.done'):
                item = event.get('item')
                if not isinstance(item, dict):
                    raise Fault('ProtocolError', f'line {number}: no item')
                keep_unmapped(choice.metadata, event, REALTIME_MAPPED_EVENT | {'item'})
                if item.get('type') == 'function_call':
                    key = text_piece(item.get('id')) or text_piece(item.get('call_id'))
                    call = choice.tool_fragment(('item', key), text_piece(item.get('call_id')) or key,
                                                text_piece(item.get('name')), '')
                    keep_unmapped(call.metadata, item, REALTIME_MAPPED_CALL_ITEM)
                    whole = item.get('arguments')
                    if kind.endswith('.done') and key not in streamed and isinstance(whole, str) and whole != '':
                        call.arguments.append(whole)
                        streamed.add(key)
                elif kind.endswith('.done') and item.get('type') != 'message':
                    choice.keep_item(item)
            elif kind == 'response.function_call_arguments.delta':
                call = call_of(number, event.get('item_id'))
                piece = event.get('delta')
                if isinstance(piece, str) and piece != '':
                    call.arguments.append(piece)
                    streamed.add(event.get('item_id'))
                keep_unmapped(call.metadata, event, REALTIME_MAPPED_EVENT | {'call_id', 'name', 'arguments'})
            elif kind == 'response.function_call_arguments.done':
                call = call_of(number, event.get('item_id'))
                whole = event.get('arguments')
                if event.get('item_id') not in streamed and isinstance(whole, str) and whole != '':
                    call.arguments.append(whole)
                    streamed.add(event.get('item_id'))
                keep_unmapped(call.metadata, event, REALTIME_MAPPED_EVENT | {'call_id', 'name', 'arguments'})
            elif kind == 'response.done':
                status = response.get('status')
                details = response.get('status_details') if isinstance(response.get('status_details'), dict) else {}
                if status == 'cancelled':
                    raise Fault('StreamClosedEarlyError', 'the response was cancelled')
                if status == 'failed':
                    raise Fault('ProviderError', 'the response failed')
                if status == 'completed':
                    choice.raw_finish = 'completed'
                elif status == 'incomplete':
                    choice.raw_finish = text_piece(details.get('reason')) or 'incomplete'
                else:
                    raise Fault('ProtocolError', f'line {number}: response.done with status {status!r}')
                usage = response.get('usage')
                if isinstance(usage, dict):
                    inputs = usage.get('input_token_details') if isinstance(usage.get('input_token_details'), dict) else {}
                    outputs = usage.get('output_token_details') if isinstance(usage.get('output_token_details'), dict) else {}
                    assembly.merge_usage({
                        'prompt': usage.get('input_tokens'),
                        'completion': usage.get('output_tokens'),
                        'total': usage.get('total_tokens'),
                        'cached': inputs.get('cached_tokens'),
                        'audio_prompt': inputs.get('audio_tokens'),
                        'audio_completion': outputs.get('audio_tokens'),
                    })
                done = True
                break
            # Anything else (the part events and the .done events that repeat text, the session's own
            # events: session.*, conversation.*, input_audio_buffer.*, rate_limits.updated, ...) is not
            # part of the reply.
        if not done:
            raise Fault('StreamClosedEarlyError', 'no response.done')
        return assembly.completion(REALTIME_FINISH)

    return run(assembly, body)


# --------------------------------------------------------------------------------------------------
# Mistral Conversations / Agents (`/v1/conversations`, stream: true)

MISTRAL_CONVERSATIONS_FINISH = normalizer({'conversation.response.done': 'stop'})
# What each event carries that this reader reads, or knows to carry nothing (`created_at` is the
# event's own time, `id` the entry's, not the reply's); the rest is kept, the last value of each.
MISTRAL_MAPPED = {
    'conversation.response.started': {'type', 'created_at', 'conversation_id'},
    'message.output.delta': {'type', 'created_at', 'output_index', 'id', 'content_index', 'model', 'role', 'content'},
    'function.call.delta': {'type', 'created_at', 'output_index', 'id', 'model', 'name', 'tool_call_id', 'arguments'},
    'tool.execution': {'type', 'created_at', 'output_index', 'id', 'model', 'name', 'arguments', 'info'},
    'conversation.response.done': {'type', 'created_at', 'usage'},
}
MISTRAL_MAPPED_USAGE = {'prompt_tokens', 'completion_tokens', 'total_tokens'}
MISTRAL_MAPPED_TEXT = {'type', 'text'}
MISTRAL_MAPPED_THINKING = {'type', 'thinking', 'signature', 'closed'}
MISTRAL_MAPPED_REFERENCE = {'type', 'url', 'title'}


def mistral_chunk_type(chunk):
    """A content chunk's kind: its `type`, or (the SDK makes it optional) what its fields say."""
    if 'type' in chunk and chunk['type'] is not None:
        return chunk['type']
    if 'text' in chunk:
        return 'text'
    if 'thinking' in chunk:
        return 'thinking'
    if 'tool' in chunk and 'title' in chunk:
        return 'tool_reference'
    return None


def read_mistral_conversations(raw):
    """Mistral's Conversations stream (its SDK's ConversationEvents): the conversation id is the reply's
    id, the first `model` of an output event its model; a message's content (a string, or a chunk:
    `text`, `thinking` with its text chunks and signature, `tool_reference` as a url source, any other
    chunk kept whole) is the text; `function.call.delta`s are the program's calls by `tool_call_id`;
    `tool.execution.*` the tools Mistral ran (input: the arguments' JSON, their text when not JSON, {}
    when none; result: `info`); handoff events kept whole as items; `conversation.response.done` ends
    it (its event type is the raw finish; there is no finish field), with usage as sent; an error
    event is a ProviderError."""
    assembly = Assembly('mistral-conversations')
    assembly.provider = 'mistral'

    def body():
        frames, cut_mid_line = read_sse(raw)
        choice = assembly.choice(0)
        executions = {}
        done = False
        for number, frame in enumerate(frames, 1):
            event = parse_payload(frame.data, f'event {number}')
            kind = event.get('type')
            if frame.event not in ('message', kind):
                raise Unsupported(f'event {number}: event name {frame.event!r} differs from type {kind!r}')
            if kind == 'conversation.response.error' or event.get('error') is not None:
                raise Fault('ProviderError', f'event {number} is an error')
            if kind in ('message.output.delta', 'function.call.delta', 'tool.execution.started', 'tool.execution.delta',
                        'tool.execution.done'):
                assembly.take_model(event.get('model'))
            if kind == 'conversation.response.started':
                assembly.take_id(event.get('conversation_id'))
                keep_unmapped(assembly.metadata, event, MISTRAL_MAPPED[kind])
            elif kind == 'message.output.delta':
                keep_unmapped(assembly.metadata, event, MISTRAL_MAPPED[kind])
                content = event.get('content')
                if isinstance(content, str):
                    if content:
                        choice.content.append(content)
                elif isinstance(content, dict):
                    chunk_type = mistral_chunk_type(content)
                    if chunk_type == 'text':
                        keep_unmapped(choice.metadata, content, MISTRAL_MAPPED_TEXT)
                        if text_piece(content.get('text')) is not None:
                            choice.content.append(content['text'])
                    elif chunk_type == 'thinking':
                        keep_unmapped(choice.metadata, content, MISTRAL_MAPPED_THINKING)
                        for inner in content.get('thinking') or []:
                            if isinstance(inner, str):
                                if inner:
                                    choice.reasoning.append(inner)
                            elif isinstance(inner, dict) and mistral_chunk_type(inner) == 'text':
                                keep_unmapped(choice.metadata, inner, MISTRAL_MAPPED_TEXT)
                                if text_piece(inner.get('text')) is not None:
                                    choice.reasoning.append(inner['text'])
                            else:
                                choice.keep_item(inner)
                        signature = content.get('signature')
                        if text_piece(signature) is not None:
                            choice.signatures.append(signature)
                            choice.opaque_item('mistral', 'signature', 'signature', 'reasoning', signature)
                    elif chunk_type == 'tool_reference' and text_piece(content.get('url')) is not None:
                        keep_unmapped(choice.metadata, content, MISTRAL_MAPPED_REFERENCE)
                        title = content.get('title')
                        choice.sources.append({'kind': 'url', 'url': content['url'], **({'title': title} if text_piece(title) else {})})
                    else:
                        choice.keep_item(content)
                elif content is not None:
                    choice.keep_item(content)
            elif kind == 'function.call.delta':
                call_id = text_piece(event.get('tool_call_id'))
                if call_id is None:
                    raise Fault('ProtocolError', f'event {number}: a function call without its tool_call_id')
                arguments = event.get('arguments')
                call = choice.tool_fragment(('call', call_id), call_id, text_piece(event.get('name')),
                                            arguments if isinstance(arguments, str) else '')
                keep_unmapped(call.metadata, event, MISTRAL_MAPPED[kind])
            elif kind in ('tool.execution.started', 'tool.execution.delta', 'tool.execution.done'):
                keep_unmapped(assembly.metadata, event, MISTRAL_MAPPED['tool.execution'])
                run_id = event.get('id')
                arguments = event.get('arguments') if isinstance(event.get('arguments'), str) else ''
                if kind == 'tool.execution.started':
                    executions[run_id] = {'name': event.get('name') or '', 'arguments': arguments}
                    continue
                run_state = executions.setdefault(run_id, {'name': event.get('name') or '', 'arguments': ''})
                if kind == 'tool.execution.delta':
                    run_state['arguments'] += arguments
                    continue
                text = run_state['arguments']
                if text == '':
                    tool_input = {}
                else:
                    try:
                        tool_input = parse_json(text)
                    except ValueError:
                        tool_input = text
                choice.provider_call(run_id, run_state['name'] or event.get('name') or '', 'tool.execution', tool_input)
                info = event.get('info')
                choice.provider_result(run_id, info if isinstance(info, dict) else {})
            elif kind in ('agent.handoff.started', 'agent.handoff.done'):
                choice.keep_item(event)
            elif kind == 'conversation.response.done':
                keep_unmapped(assembly.metadata, event, MISTRAL_MAPPED[kind])
                choice.raw_finish = 'conversation.response.done'
                usage = event.get('usage') or {}
                keep_unmapped(assembly.metadata, usage, MISTRAL_MAPPED_USAGE)
                assembly.merge_usage({'prompt': usage.get('prompt_tokens'), 'completion': usage.get('completion_tokens'),
                                      'total': usage.get('total_tokens')})
                done = True
                break
            else:
                raise Unsupported(f'event {number}: an event of type {kind!r}')
        if cut_mid_line or not done:
            raise Fault('StreamClosedEarlyError', 'no conversation.response.done')
        return assembly.completion(MISTRAL_CONVERSATIONS_FINISH)

    return run(assembly, body)


# --------------------------------------------------------------------------------------------------
# Gemini Interactions API (`/v1beta/interactions`, stream: true)

GEMINI_INTERACTIONS_FINISH = normalizer({
    'completed': 'stop',
    'requires_action': 'tool_calls',  # waiting for the program's function results
    'incomplete': 'length',  # a long decode stopped; its continuation token resumes it
    'budget_exceeded': 'length',
    'failed': 'error',
    'cancelled': 'other',
})
# Read, or known to carry nothing (`event_id` differs on every event); the rest is kept.
INTERACTION_MAPPED_EVENT = {'event_type', 'event_id', 'interaction', 'interaction_id', 'status', 'index', 'step', 'delta',
                            'metadata', 'usage'}
INTERACTION_MAPPED_RESOURCE = {'id', 'model', 'status', 'usage', 'steps', 'updated', 'continuation_token'}
INTERACTION_MAPPED_STEP = {
    'thought': {'type', 'summary', 'signature'},
    'model_output': {'type', 'content', 'error'},
    'function_call': {'type', 'id', 'name', 'arguments'},
    'call': {'type', 'id', 'name', 'arguments', 'signature'},
    'result': {'type', 'call_id', 'name', 'result', 'signature'},
}
# A delta that is read (any other is kept whole as an item).
INTERACTION_MAPPED_DELTA = {'type', 'text', 'content', 'signature', 'arguments', 'annotations', 'result'}
INTERACTION_MAPPED_USAGE = {'total_input_tokens', 'total_output_tokens', 'total_thought_tokens', 'total_cached_tokens', 'total_tokens'}
INTERACTION_MAPPED_TEXT = {'type', 'text', 'annotations'}
INTERACTION_MAPPED_CITATION = {
    'url_citation': {'type', 'url', 'title'},
    'place_citation': {'type', 'url', 'name'},
    'file_citation': {'type', 'document_uri', 'file_name'},
}


def read_gemini_interactions(raw):
    """Gemini's Interactions stream (@google/genai 3.x `InteractionSSEEvent`): the interaction's id and
    model from its first lifecycle event; steps by `index`: a thought's summary is the reasoning and its
    signature a reasoning signature (an opaque item of the reasoning, `block` the step's index); a
    model_output's text the content, its url/place/file citations sources (other annotations and content
    blocks kept as items); a function_call step a call for the program (id, name, its start's arguments
    when not empty, else its arguments_delta pieces); a `*_call` step but function_call a tool Google ran
    (provider call at its stop: id, else `<interaction id>-step-<index>`; name, else the type without
    `_call`; input its arguments, replaced by a delta of its type, or the JSON of its arguments_delta
    pieces), its `*_result` step the result of the call its call_id names (a delta of its type replaces
    it); other steps and deltas kept as items. Usage from every usage and metadata.total_usage, the last
    of each field; completion = output + thought tokens. `interaction.completed` ends it (raw finish:
    its status; a continuation token is an opaque item of the turn); `[DONE]` does not; an `error`
    event is a ProviderError."""
    assembly = Assembly('gemini-interactions')
    assembly.provider = 'google'

    def body():
        frames, cut_mid_line = read_sse(raw)
        choice = assembly.choice(0)
        steps = {}
        interaction_id = ['']
        ran = set()
        done = False

        def signature(value, index, part):
            if text_piece(value) is None:
                return
            if part == 'reasoning':
                choice.signatures.append(value)
                choice.opaque_item('google', 'signature', 'thought_signature', 'reasoning', value, block=index)
            else:
                choice.opaque_item('google', 'signature', 'signature', 'turn', value, block=index)

        def content_block(block, into):
            if not (isinstance(block, dict) and block.get('type') == 'text'):
                choice.keep_item(block)
                return
            keep_unmapped(choice.metadata, block, INTERACTION_MAPPED_TEXT)
            if text_piece(block.get('text')) is not None:
                into.append(block['text'])
            annotations(block.get('annotations'))

        def annotations(value):
            if value is None:
                return
            for annotation in value if isinstance(value, list) else [value]:
                kind = annotation.get('type') if isinstance(annotation, dict) else None
                source = None
                if kind in ('url_citation', 'place_citation') and text_piece(annotation.get('url')) is not None:
                    title = annotation.get('title' if kind == 'url_citation' else 'name')
                    source = {'kind': 'url', 'url': annotation['url'], **({'title': title} if text_piece(title) else {})}
                elif kind == 'file_citation':
                    name = text_piece(annotation.get('file_name'))
                    document = text_piece(annotation.get('document_uri')) or name
                    if document is not None:
                        source = {'kind': 'document', 'documentId': document, **({'title': name} if name else {})}
                if source is None:
                    choice.keep_item(annotation)
                else:
                    keep_unmapped(choice.metadata, annotation, INTERACTION_MAPPED_CITATION[kind])
                    choice.sources.append(source)

        def usage(value):
            if not isinstance(value, dict):
                return
            keep_unmapped(assembly.metadata, value, INTERACTION_MAPPED_USAGE)
            output, thought = value.get('total_output_tokens'), value.get('total_thought_tokens')
            fields = {'prompt': value.get('total_input_tokens'), 'total': value.get('total_tokens'),
                      'cached': value.get('total_cached_tokens'), 'reasoning': thought}
            if is_number(output) or is_number(thought):
                fields['completion'] = (output if is_number(output) else 0) + (thought if is_number(thought) else 0)
            assembly.merge_usage(fields)

        def interaction(event):
            resource = event.get('interaction')
            if not isinstance(resource, dict):
                return {}
            keep_unmapped(assembly.metadata, resource, INTERACTION_MAPPED_RESOURCE)
            if assembly.id is None:
                assembly.id = resource.get('id') or ''
                interaction_id[0] = assembly.id
                assembly.take_model(resource.get('model'))
            return resource

        for number, frame in enumerate(frames, 1):
            if frame.data == '[DONE]':
                continue
            event = parse_payload(frame.data, f'event {number}')
            kind = event.get('event_type')
            if frame.event not in ('message', kind):
                raise Unsupported(f'event {number}: event name {frame.event!r} differs from event_type {kind!r}')
            if kind == 'error' or event.get('error') is not None:
                raise Fault('ProviderError', f'event {number} is an error')
            keep_unmapped(assembly.metadata, event, INTERACTION_MAPPED_EVENT)
            if kind == 'interaction.created':
                interaction(event)
            elif kind == 'interaction.status_update':
                usage(event.get('usage'))
            elif kind == 'step.start':
                index, step = event.get('index'), event.get('step') or {}
                step_type = step.get('type')
                if step_type == 'thought':
                    steps[index] = {'kind': 'thought'}
                    keep_unmapped(choice.metadata, step, INTERACTION_MAPPED_STEP['thought'])
                    for block in step.get('summary') or []:
                        content_block(block, choice.reasoning)
                    signature(step.get('signature'), index, 'reasoning')
                elif step_type == 'model_output':
                    if step.get('error') is not None:
                        raise Fault('ProviderError', f'event {number}: a model_output step with an error')
                    steps[index] = {'kind': 'output'}
                    keep_unmapped(choice.metadata, step, INTERACTION_MAPPED_STEP['model_output'])
                    for block in step.get('content') or []:
                        content_block(block, choice.content)
                elif step_type == 'function_call':
                    arguments = step.get('arguments') or {}
                    whole = js_stringify(arguments) if arguments else ''
                    call = choice.tool_fragment(('step', index), text_piece(step.get('id')), text_piece(step.get('name')), whole)
                    keep_unmapped(call.metadata, step, INTERACTION_MAPPED_STEP['function_call'])
                    steps[index] = {'kind': 'call'}
                elif isinstance(step_type, str) and step_type.endswith('_call'):
                    keep_unmapped(choice.metadata, step, INTERACTION_MAPPED_STEP['call'])
                    steps[index] = {'kind': 'server-call', 'type': step_type,
                                    'id': text_piece(step.get('id')) or f'{interaction_id[0]}-step-{index}',
                                    'name': text_piece(step.get('name')) or step_type[:-len('_call')],
                                    'input': step.get('arguments') if step.get('arguments') is not None else {}, 'text': ''}
                    signature(step.get('signature'), index, 'turn')
                elif (isinstance(step_type, str) and step_type.endswith('_result') and step_type != 'function_result'
                      and step.get('call_id') in ran):
                    keep_unmapped(choice.metadata, step, INTERACTION_MAPPED_STEP['result'])
                    steps[index] = {'kind': 'server-result', 'type': step_type, 'call_id': step['call_id'], 'result': step.get('result')}
                    signature(step.get('signature'), index, 'turn')
                else:
                    steps[index] = {'kind': 'other'}
                    choice.keep_item(step)
            elif kind == 'step.delta':
                index = event.get('index')
                if index not in steps:
                    raise Fault('ProtocolError', f'event {number}: a delta of a step that never started')
                state, delta = steps[index], event.get('delta')
                if isinstance(delta, dict):
                    delta_type = delta.get('type')
                    read = {
                        'text': state['kind'] in ('output', 'thought'),
                        'thought_summary': state['kind'] == 'thought',
                        'thought_signature': True,
                        'text_annotation_delta': state['kind'] == 'output',
                        'arguments_delta': state['kind'] in ('call', 'server-call'),
                    }.get(delta_type, state['kind'] in ('server-call', 'server-result') and delta_type == state.get('type'))
                    if read:
                        keep_unmapped(choice.metadata, delta, INTERACTION_MAPPED_DELTA)
                    if delta_type == 'text' and state['kind'] in ('output', 'thought'):
                        if text_piece(delta.get('text')) is not None:
                            (choice.content if state['kind'] == 'output' else choice.reasoning).append(delta['text'])
                    elif delta_type == 'thought_summary' and state['kind'] == 'thought':
                        if delta.get('content') is not None:
                            content_block(delta['content'], choice.reasoning)
                    elif delta_type == 'thought_signature':
                        signature(delta.get('signature'), index, 'reasoning' if state['kind'] == 'thought' else 'turn')
                    elif delta_type == 'text_annotation_delta' and state['kind'] == 'output':
                        annotations(delta.get('annotations'))
                    elif delta_type == 'arguments_delta' and state['kind'] == 'call':
                        choice.tool_fragment(('step', index), None, None, delta.get('arguments') or '')
                    elif delta_type == 'arguments_delta' and state['kind'] == 'server-call':
                        state['text'] += delta.get('arguments') or ''
                    elif state['kind'] == 'server-call' and delta_type == state['type']:
                        if delta.get('arguments') is not None:
                            state['input'] = delta['arguments']
                        signature(delta.get('signature'), index, 'turn')
                    elif state['kind'] == 'server-result' and delta_type == state['type']:
                        if 'result' in delta:
                            state['result'] = delta['result']
                        signature(delta.get('signature'), index, 'turn')
                    else:
                        choice.keep_item(delta)
                metadata = event.get('metadata')
                if isinstance(metadata, dict):
                    usage(metadata.get('total_usage'))
            elif kind == 'step.stop':
                index = event.get('index')
                if index not in steps:
                    raise Fault('ProtocolError', f'event {number}: the stop of a step that never started')
                state = steps[index]
                if state['kind'] == 'server-call':
                    tool_input = state['input']
                    if state['text']:
                        try:
                            tool_input = parse_json(state['text'])
                        except ValueError:
                            tool_input = state['text']
                    ran.add(state['id'])
                    choice.provider_call(state['id'], state['name'], state['type'], tool_input)
                elif state['kind'] == 'server-result':
                    choice.provider_result(state['call_id'], state['result'])
                usage(event.get('usage'))
            elif kind == 'interaction.completed':
                resource = interaction(event)
                if not isinstance(resource.get('status'), str) or not resource['status']:
                    raise Fault('ProtocolError', f'event {number}: interaction.completed without a status')
                usage(resource.get('usage'))
                if text_piece(resource.get('continuation_token')) is not None:
                    choice.opaque_item('google', 'continuation', 'continuation_token', 'turn', resource['continuation_token'])
                choice.raw_finish = resource['status']
                done = True
                break
            else:
                raise Unsupported(f'event {number}: an event of type {kind!r}')
        if cut_mid_line or not done:
            raise Fault('StreamClosedEarlyError', 'no interaction.completed')
        return assembly.completion(GEMINI_INTERACTIONS_FINISH, missing_id='')

    return run(assembly, body)


# --------------------------------------------------------------------------------------------------
# Driver

READERS = {
    'openai-chat': read_openai_chat,
    'anthropic': read_anthropic,
    'openai-responses': read_openai_responses,
    'gemini': read_gemini,
    'ollama': read_ollama,
    'llamacpp-completion': read_llamacpp_completion,
    'typed-events': read_typed_events,
    'bedrock-converse': read_bedrock_converse,
    'cohere': read_cohere,
    'openai-realtime': read_openai_realtime,
    'mistral-conversations': read_mistral_conversations,
    'gemini-interactions': read_gemini_interactions,
}


def dialect_of(path):
    relative = os.path.relpath(os.path.abspath(path), MARBLES).replace(os.sep, '/')
    parts = relative.split('/')
    if parts[0] == 'corpus' and len(parts) == 3:
        return parts[1]  # corpus/<dialect>/<recording>
    if parts[0] == 'dialects' and len(parts) == 3 and parts[1] in FOLDER_DIALECTS:
        return parts[1]  # dialects/<dialect>/<recording>
    return DIALECT_OF.get(relative, 'openai-chat')


def expected_path(path):
    base, _ = os.path.splitext(path)
    return base + '.expected.json'


def read_recording(path, dialect=None):
    with open(path, 'rb') as handle:
        raw = handle.read()
    dialect = dialect or dialect_of(path)
    if dialect not in READERS:
        raise Unsupported(f'no reader for {dialect}')
    return READERS[dialect](raw)


def to_text(result):
    return json.dumps(result, ensure_ascii=False, indent=2) + '\n'


def all_recordings():
    found = []
    for folder, _, names in os.walk(MARBLES):
        # hostile/ holds broken input with outcomes written by hand (hostile/README.md), most of
        # them refusals this reader, made for well-formed streams, does not model.
        if os.path.basename(folder) in ('tools', 'hostile'):
            continue
        for name in names:
            if name.endswith(RECORDING_EXTENSIONS):
                found.append(os.path.join(folder, name))
    return sorted(found)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('files', nargs='*')
    parser.add_argument('--dialect', choices=sorted(READERS))
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument('--write', action='store_true', help='write NAME.expected.json beside each file')
    mode.add_argument('--check', action='store_true', help='compare with the NAME.expected.json files')
    options = parser.parse_args(argv)

    if options.check:
        files = options.files or all_recordings()
        failures = 0
        for path in files:
            target = expected_path(path)
            try:
                mine = to_text(read_recording(path, options.dialect))
            except Unsupported as error:
                print(f'UNSUPPORTED {path}: {error}')
                failures += 1
                continue
            if not os.path.exists(target):
                print(f'MISSING     {target}')
                failures += 1
                continue
            with open(target, encoding='utf-8') as handle:
                theirs = handle.read()
            # Byte-equal text (same values, types and key order) after normalizing the layout.
            if to_text(json.loads(theirs)) != mine:
                print(f'DIFFERS     {path}')
                failures += 1
            else:
                print(f'ok          {path}')
        return 1 if failures else 0

    if not options.files:
        parser.error('name at least one recording (or use --check)')
    for path in options.files:
        result = read_recording(path, options.dialect)
        if options.write:
            with open(expected_path(path), 'w', encoding='utf-8') as handle:
                handle.write(to_text(result))
            print(f'wrote {expected_path(path)}')
        else:
            sys.stdout.write(to_text(result))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
