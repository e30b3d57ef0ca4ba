#!/usr/bin/env python3
"""Builds the recordings in marbles/ (standard library only).

* real/      the vercel/ai recordings, rebuilt as wire bytes from ../shared/recordings/ai-sdk/ (beside the checkout)
             (`*.chunks.txt`: `data: <line>\\n\\n` per non-empty line, then `data: [DONE]\\n\\n`;
             the native Anthropic file: `event: <type>\\ndata: <line>\\n\\n`, no [DONE]; `*.sse`
             copied byte for byte).
* dialects/  ../shared/reference/dialect-examples/, copied byte for byte.
* openai/    the synthetic OpenAI Chat Completions streams. Each case states its intended result by
             hand, next to the chunks, and that intent is written as NAME.expected.json. It is not
             computed from the bytes: `expected.py --check` then reads the bytes independently and
             must agree with the intent.

It does not write the expected files of real/ and dialects/: those come from `expected.py --write`
and were checked by hand (see marbles/README.md). Nothing here runs the library.

* corpus/    every streamed chat reply among vercel/ai's recorded fixtures (`git show` from a local copy
             of the repository at a fixed commit), rebuilt as each provider sends it; see corpus/SOURCES.md.

Usage: build.py [--recordings DIR] [--examples DIR] [--mirror GITDIR] [--only openai|real|dialects|corpus]
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

MARBLES = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def dumps(value):
    return json.dumps(value, ensure_ascii=False, separators=(',', ':'))


def write_bytes(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as handle:
        handle.write(data)


def write_json(path, value):
    with open(path, 'w', encoding='utf-8') as handle:
        handle.write(json.dumps(value, ensure_ascii=False, indent=2) + '\n')


# --------------------------------------------------------------------------------------------------
# real/ and dialects/

NATIVE_ANTHROPIC = {'anthropic-json-tool.2.chunks.txt'}


def rebuild_real(source_dir):
    target_dir = os.path.join(MARBLES, 'real')
    sources = os.path.join(source_dir, 'SOURCES.md')
    recorded_sha = {}
    if os.path.exists(sources):
        for line in open(sources, encoding='utf-8'):
            cells = [cell.strip() for cell in line.split('|')]
            if len(cells) > 6 and re.fullmatch(r'[0-9a-f]{64}', cells[5]):
                recorded_sha[cells[1]] = cells[5]
    for name in sorted(os.listdir(source_dir)):
        path = os.path.join(source_dir, name)
        with open(path, 'rb') as handle:
            raw = handle.read()
        if name in recorded_sha and hashlib.sha256(raw).hexdigest() != recorded_sha[name]:
            sys.exit(f'{name}: sha256 differs from SOURCES.md')
        if name.endswith('.chunks.txt'):
            base = name[: -len('.chunks.txt')]
            lines = [line for line in raw.decode('utf-8').split('\n') if line != '']
            if name in NATIVE_ANTHROPIC:
                out = ''.join(f'event: {json.loads(line)["type"]}\ndata: {line}\n\n' for line in lines)
            else:
                out = ''.join(f'data: {line}\n\n' for line in lines) + 'data: [DONE]\n\n'
            write_bytes(os.path.join(target_dir, base + '.sse'), out.encode('utf-8'))
            print(f'real/{base}.sse  ({len(lines)} payloads)')
        elif name.endswith('.sse'):
            write_bytes(os.path.join(target_dir, name), raw)
            print(f'real/{name}  (copied)')


def copy_examples(examples_dir):
    for name in sorted(os.listdir(examples_dir)):
        shutil.copyfile(os.path.join(examples_dir, name), os.path.join(MARBLES, 'dialects', name))
        print(f'dialects/{name}  (copied)')


# --------------------------------------------------------------------------------------------------
# corpus/: every streamed chat reply among the AI SDK's recorded fixtures, rebuilt as wire bytes

CORPUS_REPO = 'vercel/ai'
CORPUS_COMMIT = 'ed857f50f112e23930b0c2dd8d532cc8bebbc911'
CORPUS_LICENSE = 'Apache-2.0 (Copyright 2023 Vercel, Inc.)'

# Fixtures that are not a streamed chat reply of a dialect this library reads, or that a test of the
# AI SDK wrote by hand to break its own parser; the reason is the value.
CORPUS_LEFT_OUT = {
    'packages/google/src/interactions/__fixtures__/image-output': "Gemini's Interactions API with image output: its blob is absent from the local snapshot of the repository",
    'packages/google/src/speech-translation/': 'a live speech-translation session, not a chat reply',
    'packages/openai/src/speech-translation/': 'a realtime speech-translation session, not a chat reply',
    'packages/anthropic/src/__fixtures__/duplicate-message-start.chunks.txt': 'a fault written by hand (two message_start)',
    'packages/openai/src/responses/__fixtures__/parallel-tool-call-wrapper.1.chunks.txt': 'written by hand (ids like resp_parallel), and its first line is not JSON',
    'packages/anthropic/src/__fixtures__/spliced-message-start.chunks.txt': 'a fault written by hand (two replies spliced)',
}

BEDROCK_EVENTS = ('messageStart', 'contentBlockStart', 'contentBlockDelta', 'contentBlockStop', 'messageStop', 'metadata')


def corpus_dialect(first):
    """The dialect of a fixture, from its first payload."""
    if isinstance(first.get('event_type'), str):
        return 'gemini-interactions'
    kind = first.get('type')
    if isinstance(kind, str) and (kind.startswith('response.') or kind == 'error'):
        return 'openai-responses'
    if kind in ('message_start', 'ping'):
        return 'anthropic'
    if kind == 'message-start':
        return 'cohere'
    if 'candidates' in first:
        return 'gemini'
    if len(first) == 1 and next(iter(first)) in BEDROCK_EVENTS:
        return 'bedrock-converse'
    if 'choices' in first or first.get('object') in ('chat.completion.chunk', 'text_completion'):
        return 'openai-chat'
    return None


def crc32(data, start=0):
    return zlib.crc32(data, start) & 0xFFFFFFFF


def aws_event_message(event_type, payload):
    """One message of AWS's binary event stream (application/vnd.amazon.eventstream), as Bedrock sends
    an event: prelude (total length, headers length, CRC-32 of the two), headers (name length, name,
    type 7 = string, value length, value), the payload, the CRC-32 of all that came before."""
    headers = b''
    for name, value in ((':event-type', event_type), (':content-type', 'application/json'), (':message-type', 'event')):
        name_bytes, value_bytes = name.encode('utf-8'), value.encode('utf-8')
        headers += bytes([len(name_bytes)]) + name_bytes + bytes([7]) + struct.pack('>H', len(value_bytes)) + value_bytes
    body = payload.encode('utf-8')
    total = 12 + len(headers) + len(body) + 4
    prelude = struct.pack('>II', total, len(headers))
    message = prelude + struct.pack('>I', crc32(prelude)) + headers + body
    return message + struct.pack('>I', crc32(message))


def corpus_wire(dialect, lines):
    """The wire bytes of a fixture's payloads (one JSON text a line), as the provider sends them."""
    if dialect in ('openai-chat',):
        # The AI SDK's own rebuild of every Chat Completions fixture: each payload, then [DONE].
        return (''.join(f'data: {line}\n\n' for line in lines) + 'data: [DONE]\n\n').encode('utf-8'), 'sse'
    if dialect in ('anthropic', 'openai-responses', 'cohere'):
        # These name every event by its `type`, and end at their own last event, with no [DONE].
        return ''.join(f'event: {json.loads(line)["type"]}\ndata: {line}\n\n' for line in lines).encode('utf-8'), 'sse'
    if dialect == 'gemini':
        return ''.join(f'data: {line}\n\n' for line in lines).encode('utf-8'), 'sse'
    if dialect == 'gemini-interactions':
        # Named by its `event_type`, as Google's streaming guide shows the wire; it ends at its own last event.
        return ''.join(f'event: {json.loads(line)["event_type"]}\ndata: {line}\n\n' for line in lines).encode('utf-8'), 'sse'
    if dialect == 'bedrock-converse':
        # Each line is {"<event type>": <payload>}: the payload rides in a message of that type. The
        # payload is written back as compact JSON, as AWS writes it.
        out = b''
        for line in lines:
            ((event_type, payload),) = json.loads(line).items()
            out += aws_event_message(event_type, dumps(payload))
        return out, 'eventstream'
    raise ValueError(dialect)


def corpus_name(path):
    """`<fixture>` when its name starts with its package's, else `<package>.<fixture>`."""
    package = path.split('/')[1]
    base = os.path.basename(path)[: -len('.chunks.txt')]
    return base if base.startswith(package + '-') else f'{package}.{base}'


def git(mirror, *args):
    return subprocess.run(['git', '-C', mirror, *args], check=True, capture_output=True).stdout


def build_corpus(mirror, genai_mirror, ollama_mirror):
    """Writes corpus/: the replies of both sources, and corpus/sources.json (origin, blob, last
    commit, sha256 of each), from which SOURCES.md is written."""
    target = os.path.join(MARBLES, 'corpus')
    known = {}
    sources_path = os.path.join(target, 'sources.json')
    if os.path.exists(sources_path):
        for entry in json.load(open(sources_path, encoding='utf-8'))['recorded']:
            known[(entry['repository'], entry['path'], entry.get('interaction'))] = entry['sourceSha256']
    entries, left_out = build_corpus_ai_sdk(mirror, known)
    more, more_left_out = build_corpus_genai(genai_mirror, known)
    entries, left_out = entries + more, left_out + more_left_out
    more, more_left_out = build_corpus_ollama(ollama_mirror, known)
    entries, left_out = entries + more, left_out + more_left_out
    write_json(sources_path, {'recorded': entries, 'leftOut': left_out})
    write_sources_md(entries, left_out)


def build_corpus_ai_sdk(mirror, known):
    """Copies vercel/ai's fixtures out of the snapshot (`git show <commit>:<path>`) and rebuilds their
    bytes under corpus/<dialect>/."""
    target = os.path.join(MARBLES, 'corpus')
    in_real = set()
    real_sources = open(os.path.join(MARBLES, 'real', 'SOURCES.md'), encoding='utf-8').read()
    for match in re.finditer(r'(packages/\S+?\.chunks\.txt)', real_sources):
        in_real.add(match.group(1))
    paths = [p for p in git(mirror, 'ls-tree', '-r', '--name-only', CORPUS_COMMIT).decode().split('\n')
             if re.search(r'__fixtures__/.*\.chunks\.txt$', p)]
    entries, left_out = [], []
    # The same bytes under two paths are one recording (Azure's tests reuse OpenAI's files).
    seen_blobs = {git(mirror, 'rev-parse', f'{CORPUS_COMMIT}:{path}').decode().strip(): path for path in in_real if path in paths}
    for path in sorted(paths):
        reason = next((why for prefix, why in CORPUS_LEFT_OUT.items() if path.startswith(prefix)), None)
        if reason is None and path in in_real:
            reason = 'already in real/'
        blob = None
        if reason is None:
            blob = git(mirror, 'rev-parse', f'{CORPUS_COMMIT}:{path}').decode().strip()
            if blob in seen_blobs:
                reason = f'the same bytes as {seen_blobs[blob]}'
            seen_blobs.setdefault(blob, path)
        if reason is not None:
            left_out.append({'path': path, 'reason': reason})
            continue
        raw = git(mirror, 'show', f'{CORPUS_COMMIT}:{path}')
        if known.get((CORPUS_REPO, path, None), hashlib.sha256(raw).hexdigest()) != hashlib.sha256(raw).hexdigest():
            sys.exit(f'{path}: sha256 differs from corpus/sources.json')
        lines = [line for line in raw.decode('utf-8').split('\n') if line.strip() != '']
        dialect = corpus_dialect(json.loads(lines[0]))
        if dialect is None:
            left_out.append({'path': path, 'reason': 'not a chat reply of a dialect this library reads'})
            continue
        wire, extension = corpus_wire(dialect, lines)
        name = f'{dialect}/{corpus_name(path)}.{extension}'
        write_bytes(os.path.join(target, name), wire)
        entries.append({
            'file': name,
            'repository': CORPUS_REPO,
            'commit': CORPUS_COMMIT,
            'path': path,
            'lastCommit': git(mirror, 'log', '-1', '--format=%H', CORPUS_COMMIT, '--', path).decode().strip(),
            'blob': blob,
            'license': CORPUS_LICENSE,
            'payloads': len(lines),
            'sourceSha256': hashlib.sha256(raw).hexdigest(),
            'sha256': hashlib.sha256(wire).hexdigest(),
        })
        print(f'corpus/{name}  ({len(lines)} payloads)')
    return entries, left_out


GENAI_REPO = 'googleapis/js-genai'
GENAI_COMMIT = '6e9b35c45e21f0d37179a24d29dca01ebed698e6'
GENAI_LICENSE = 'Apache-2.0 (Copyright Google LLC)'


# Replies that read wrong today would be left out here, each a finding, so that the corpus spec holds
# what passes; none is now (server-side MCP, the last, is read to its real end).
GENAI_LEFT_OUT = {}


def base_name(path):
    return os.path.basename(path).rsplit('.', 1)[0]


def build_corpus_genai(mirror, known):
    """The replies of Gemini and Vertex AI recorded by the system tests of Google's JavaScript SDK
    (test/system/recordings/*.json): every interaction answered 200 with `text/event-stream`. The
    recorder kept each event's JSON as a `bodySegments` entry; the wire is rebuilt as Google sends it,
    `data: <json>` and a blank line, with CRLF line ends, no [DONE]."""
    folder = 'test/system/recordings/'
    paths = [p for p in git(mirror, 'ls-tree', '-r', '--name-only', GENAI_COMMIT, folder).decode().split('\n') if p.endswith('.json')]
    entries, left_out = [], []
    for path in sorted(paths):
        raw = git(mirror, 'show', f'{GENAI_COMMIT}:{path}')
        recording = json.loads(raw)
        streams = [(number, interaction) for number, interaction in enumerate(recording.get('interactions', []))
                   if 'event-stream' in interaction['response']['headers'].get('Content-Type', '')]
        for number, interaction in streams:
            response = interaction['response']
            where = {'path': path, 'interaction': number}
            if str(response['statusCode']) != '200':
                left_out.append(dict(where, reason=f'answered {response["statusCode"]}: an error body, not a stream'))
                continue
            if base_name(path) in GENAI_LEFT_OUT:
                left_out.append(dict(where, reason=GENAI_LEFT_OUT[base_name(path)]))
                continue
            segments = response.get('bodySegments') or []
            if not segments:
                left_out.append(dict(where, reason='an empty body (Content-Length: 0)'))
                continue
            if known.get((GENAI_REPO, path, number), hashlib.sha256(raw).hexdigest()) != hashlib.sha256(raw).hexdigest():
                sys.exit(f'{path}: sha256 differs from corpus/sources.json')
            wire = ''.join(f'data: {dumps(segment)}\r\n\r\n' for segment in segments).encode('utf-8')
            base = re.sub(r'[^A-Za-z0-9._-]', '-', os.path.basename(path)[: -len('.json')])
            suffix = f'.{number}' if len(streams) > 1 else ''
            name = f'gemini/js-genai.{base}{suffix}.sse'
            write_bytes(os.path.join(MARBLES, 'corpus', name), wire)
            entries.append({
                'file': name,
                'repository': GENAI_REPO,
                'commit': GENAI_COMMIT,
                'path': path,
                'interaction': number,
                'lastCommit': git(mirror, 'log', '-1', '--format=%H', GENAI_COMMIT, '--', path).decode().strip(),
                'blob': git(mirror, 'rev-parse', f'{GENAI_COMMIT}:{path}').decode().strip(),
                'license': GENAI_LICENSE,
                'payloads': len(segments),
                'sourceSha256': hashlib.sha256(raw).hexdigest(),
                'sha256': hashlib.sha256(wire).hexdigest(),
                'server': interaction['request'].get('serverAddress'),
                'recordedAt': response['headers'].get('Date'),
            })
            print(f'corpus/{name}  ({len(segments)} payloads)')
    return entries, left_out


OLLAMA_REPO = 'attogram/ollama-bash-lib'
OLLAMA_COMMIT = '613b8cb24642f78b8653229ee9d6c3fba90dcdf2'
OLLAMA_LICENSE = 'MIT (Copyright 2025 Ollama Bash Lib, Attogram Project)'
OLLAMA_DEMO = 'demos/ollama_generate_stream_json.md'


def json_objects(text):
    """The JSON objects of a text that holds them one after the other (jq's pretty print), or None."""
    decoder, at, found = json.JSONDecoder(), 0, []
    text = text.strip()
    while at < len(text):
        try:
            value, at = decoder.raw_decode(text, at)
        except ValueError:
            return None
        if not isinstance(value, dict):
            return None
        found.append(value)
        while at < len(text) and text[at] in ' \n':
            at += 1
    return found


def build_corpus_ollama(mirror, known):
    """Ollama's native /api/generate stream, as the demo of a shell client printed it at each of its
    versions (demos/ollama_generate_stream_json.md: the server's NDJSON lines pretty-printed by jq): the
    first complete stream (a last object with done: true) of each model, newest version first. The wire
    is rebuilt as Ollama sends it: each object as compact JSON on its own line."""
    commits = git(mirror, 'log', '--format=%H', OLLAMA_COMMIT, '--', OLLAMA_DEMO).decode().split()
    entries, left_out, models = [], [], set()
    for commit in commits:
        raw = git(mirror, 'show', f'{commit}:{OLLAMA_DEMO}')
        blocks = re.findall(r'```json\n(.*?)```', raw.decode('utf-8'), re.S)
        for number, block in enumerate(blocks):
            objects = json_objects(block)
            if not objects or objects[-1].get('done') is not True:
                continue  # debug output mixed in, or not a whole stream
            model = objects[0].get('model')
            if model in models:
                continue
            models.add(model)
            if known.get((OLLAMA_REPO, f'{OLLAMA_DEMO}@{commit}', number), hashlib.sha256(raw).hexdigest()) != hashlib.sha256(raw).hexdigest():
                sys.exit(f'{OLLAMA_DEMO}@{commit}: sha256 differs from corpus/sources.json')
            wire = ''.join(dumps(value) + '\n' for value in objects).encode('utf-8')
            name = 'ollama/ollama-bash-lib.generate.' + re.sub(r'[^A-Za-z0-9._-]', '-', model) + '.ndjson'
            write_bytes(os.path.join(MARBLES, 'corpus', name), wire)
            entries.append({
                'file': name,
                'repository': OLLAMA_REPO,
                'commit': commit,
                'path': f'{OLLAMA_DEMO}@{commit}',
                'interaction': number,
                'lastCommit': commit,
                'blob': git(mirror, 'rev-parse', f'{commit}:{OLLAMA_DEMO}').decode().strip(),
                'license': OLLAMA_LICENSE,
                'payloads': len(objects),
                'sourceSha256': hashlib.sha256(raw).hexdigest(),
                'sha256': hashlib.sha256(wire).hexdigest(),
                'server': f'Ollama, {model}',
                'recordedAt': objects[0].get('created_at'),
            })
            print(f'corpus/{name}  ({len(objects)} lines)')
    return entries, left_out


def write_sources_md(entries, left_out):
    """corpus/SOURCES.md: the origin, license and checksums of every recording, from sources.json."""
    lines = [CORPUS_HEADER]
    for repository in sorted({entry['repository'] for entry in entries}):
        mine = [entry for entry in entries if entry['repository'] == repository]
        at = f' at `{mine[0]["commit"]}`' if len({entry['commit'] for entry in mine}) == 1 else ' (the commit of each in its path, after the @)'
        lines.append(f'\n## {repository}{at} ({mine[0]["license"]}): {len(mine)} replies\n')
        lines.append('| file | origin path | interaction | last commit of the path | payloads | sha256 of the origin file | sha256 of the wire bytes | note |')
        lines.append('|---|---|---|---|---|---|---|---|')
        for entry in sorted(mine, key=lambda entry: entry['file']):
            note = CORPUS_NOTES.get(entry['file'], '')
            if entry.get('server'):
                note = f'{entry["server"]}, {entry["recordedAt"]}' + (f'; {note}' if note else '')
            interaction = entry.get('interaction')
            lines.append(f'| {entry["file"]} | {entry["path"]} | {"" if interaction is None else interaction} | '
                         f'{entry["lastCommit"][:12]} | {entry["payloads"]} | {entry["sourceSha256"]} | {entry["sha256"]} | {note} |')
    lines.append('\n## Left out\n')
    lines.append('| origin path | interaction | why |')
    lines.append('|---|---|---|')
    for item in left_out:
        lines.append(f'| {item["path"]} | {item.get("interaction", "")} | {item["reason"]} |')
    with open(os.path.join(MARBLES, 'corpus', 'SOURCES.md'), 'w', encoding='utf-8') as handle:
        handle.write('\n'.join(lines) + '\n')


CORPUS_HEADER = '''# The recorded corpus: where each reply comes from

Written by `../tools/build.py` from `sources.json`; do not edit by hand.

Each reply was recorded by a public project from a live server and kept in its repository as test
data. Only data files were taken, never code, with `git show <commit>:<path>` from a copy of the
repository at the commit named below; the origin file's sha256 is checked on every rebuild. The wire
bytes are rebuilt as the provider sends them (see marbles/README.md, "The recorded corpus"), and
the expected reading beside each (`NAME.expected.json`) was written by `../tools/expected.py`, which
shares no code with the library.

A note says when a file looks written by hand rather than recorded (made-up ids, a zero timestamp):
those are kept, as the projects keep them, and counted apart in marbles/README.md.'''

# Files that look written by hand from the documented shapes rather than recorded, and why.
CORPUS_NOTES = {
    'bedrock-converse/amazon-bedrock-json-only-text-first.1.eventstream': 'looks written by hand: no messageStart, the id `json-tool-1`',
    'bedrock-converse/amazon-bedrock-json-other-tool.1.eventstream': 'looks trimmed by hand: no messageStart, metadata before messageStop',
    'bedrock-converse/amazon-bedrock-json-tool-text-then-weather-then-json.1.eventstream': 'looks written by hand: ids `weather-tool-1`, `weather-tool-2`',
    'bedrock-converse/amazon-bedrock-json-tool.1.eventstream': 'looks written by hand: the id `json-tool-id`',
    'bedrock-converse/amazon-bedrock-json-tool.2.eventstream': 'looks written by hand: the id `json-tool-id`',
    'bedrock-converse/amazon-bedrock-json-tool.3.eventstream': 'looks written by hand: the id `json-tool-id`',
    'bedrock-converse/amazon-bedrock-json-with-tool.1.eventstream': 'looks written by hand: ids `tool-1`, `json-tool-id`',
    'bedrock-converse/amazon-bedrock-json-with-tools.1.eventstream': 'looks written by hand: ids `tool-1`, `tool-2`',
    'bedrock-converse/amazon-bedrock-tool-call.1.eventstream': 'looks written by hand: the id `tool-use-id`',
    'bedrock-converse/amazon-bedrock-tool-no-args.eventstream': 'looks written by hand: the id `tool-use-id`, an empty `start`',
    'anthropic/anthropic-advisor-stop-reasons.sse': 'looks written by hand: ids `msg_advisor_stop_reasons`, `srvtoolu_advisor_plaintext`',
    'anthropic/anthropic-fallback.sse': 'looks written by hand: the id `msg_01FallbackStreamAbcdefghij`',
    'anthropic/anthropic-refusal.sse': 'looks written by hand: the id `msg_01RefusalStreamAbcdefghijk`',
    'anthropic/anthropic-programmatic-tool-calling.1.sse': 'the replies of several steps in one file: the first ends at its `message_stop`, which is where both readers stop',
    'openai-chat/moonshotai-stream.sse': 'looks written by hand: the id `chatcmpl-stream`',
    'openai-responses/openai-apply-patch-tool-delete.1.sse': 'looks written by hand: ids `resp_delete_001`, `apc_delete_001`',
    'openai-responses/openai-shell-container.1.sse': 'looks written by hand: ids counting up in hex (`resp_0f1a2b3c4d5e...`)',
    'openai-responses/openai.github-copilot-id-rotation.1.sse': 'a capture whose ids were replaced (`capture-id-1`, ...)',
    'openai-responses/xai-image-generation-tool.1.sse': 'looks written by hand or scrubbed: zero ids, `created_at: 0`',
}


# --------------------------------------------------------------------------------------------------
# Synthetic OpenAI Chat Completions streams

CREATED = 1767225600
DONE = 'data: [DONE]\n\n'


def event(obj, space=True, eol='\n'):
    return ('data: ' if space else 'data:') + dumps(obj) + eol + eol


def choice(delta, finish=None, index=0, **extra):
    value = {'index': index, 'delta': delta, 'logprobs': None, 'finish_reason': finish}
    value.update(extra)
    return value


def chunk(cid, model, choices, usage=None, fingerprint='fp_6f2a1c9e7b', **extra):
    """An OpenAI chunk in OpenAI's key order (`usage: null` on every chunk, as with include_usage)."""
    value = {
        'id': cid,
        'object': 'chat.completion.chunk',
        'created': CREATED,
        'model': model,
        'service_tier': 'default',
        'system_fingerprint': fingerprint,
        'choices': choices,
        'usage': usage,
    }
    value.update(extra)
    return value


# The intended results, written by hand. Helpers only fix the key order of the interface.


def usage(prompt, completion, total, cached=None, reasoning=None):
    value = {'promptTokens': prompt, 'completionTokens': completion, 'totalTokens': total}
    if cached is not None:
        value['cachedPromptTokens'] = cached
    if reasoning is not None:
        value['reasoningTokens'] = reasoning
    return value


def call(index, cid, name, arguments, args):
    return {'index': index, 'id': cid, 'name': name, 'arguments': arguments, 'args': args}


def choice_result(index, content=None, reasoning=None, refusal=None, tool_calls=(), finish='stop', raw=None):
    return {
        'index': index,
        'content': content,
        'reasoning': reasoning,
        'refusal': refusal,
        'toolCalls': list(tool_calls),
        'finishReason': finish,
        'rawFinishReason': raw if raw is not None else finish,
    }


def completion(cid, model, first, usage_value, timings=None, reasoning_tokens=0, others=()):
    return {
        'dialect': 'openai-chat',
        'completion': {
            'id': cid,
            'model': model,
            'content': first['content'],
            'reasoning': first['reasoning'],
            'refusal': first['refusal'],
            'toolCalls': first['toolCalls'],
            'finishReason': first['finishReason'],
            'rawFinishReason': first['rawFinishReason'],
            'usage': usage_value,
            'timings': timings,
            'reasoningTokens': reasoning_tokens,
            'choices': [first, *others],
        },
    }


def failure(error, content=None, reasoning=None, tool_calls=()):
    return {
        'dialect': 'openai-chat',
        'error': error,
        'partial': {'content': content, 'reasoning': reasoning, 'toolCalls': list(tool_calls)},
    }


GPT = 'gpt-4.1-mini-2025-04-14'


def text_chunks():
    cid = 'chatcmpl-CmbSynthText0001aBcDeFgHiJkL'
    return cid, [
        chunk(cid, GPT, [choice({'role': 'assistant', 'content': '', 'refusal': None})], obfuscation='Qup1Bs'),
        chunk(cid, GPT, [choice({'content': 'Caf'})], obfuscation='yhjoJbEF'),
        chunk(cid, GPT, [choice({'content': 'é au lait'})], obfuscation='dTh'),
        chunk(cid, GPT, [choice({'content': ''})], obfuscation='q8'),
        chunk(cid, GPT, [choice({'content': ', 中'})], obfuscation='yoKFv'),
        chunk(cid, GPT, [choice({'content': '文 and an emoji '})], obfuscation='Lw0'),
        chunk(cid, GPT, [choice({'content': '🙂'})], obfuscation='Zx81Kq'),
        chunk(cid, GPT, [choice({'content': '!'})], obfuscation='R3mT'),
        chunk(cid, GPT, [choice({}, 'stop')], obfuscation='zap0'),
        chunk(cid, GPT, [], usage={
            'prompt_tokens': 21, 'completion_tokens': 11, 'total_tokens': 32,
            'prompt_tokens_details': {'cached_tokens': 0, 'audio_tokens': 0},
            'completion_tokens_details': {'reasoning_tokens': 0, 'audio_tokens': 0,
                                          'accepted_prediction_tokens': 0, 'rejected_prediction_tokens': 0},
        }, obfuscation='h9RiQLL'),
    ]


TEXT_RESULT = completion(
    'chatcmpl-CmbSynthText0001aBcDeFgHiJkL', GPT,
    choice_result(0, content='Café au lait, 中文 and an emoji 🙂!', finish='stop'),
    usage(21, 11, 32, cached=0, reasoning=0),
)


def case_text():
    _, chunks = text_chunks()
    return ''.join(event(c) for c in chunks) + DONE, TEXT_RESULT


def case_crlf():
    # The text stream again: CRLF line ends, keep-alive comments, and `data:` without its space on
    # every other event (and on [DONE]).
    _, chunks = text_chunks()
    wire = ': keep-alive\r\n\r\n'
    for number, c in enumerate(chunks):
        wire += event(c, space=number % 2 == 0, eol='\r\n')
        if number == 3:
            wire += ': keep-alive\r\n\r\n'
    wire += 'data:[DONE]\r\n\r\n'
    return wire, TEXT_RESULT


QWEN = 'Qwen3-8B-Q4_K_M.gguf'


def llama_timings(predicted_n):
    return {
        'cache_n': 0, 'prompt_n': 52, 'prompt_ms': 48.112, 'prompt_per_token_ms': 0.925231,
        'prompt_per_second': 1080.81, 'predicted_n': predicted_n, 'predicted_ms': predicted_n * 20.5,
        'predicted_per_token_ms': 20.5, 'predicted_per_second': 48.780488,
    }


def llama_chunk(cid, choices, timings=None, progress=None, usage_value=None):
    """llama.cpp's key order; timings on every chunk (timings_per_token)."""
    value = {'choices': choices, 'created': CREATED, 'id': cid, 'model': QWEN,
             'system_fingerprint': 'b6512-4f3a9c1e', 'object': 'chat.completion.chunk'}
    if usage_value is not None:
        value['usage'] = usage_value
    if timings is not None:
        value['timings'] = timings
    if progress is not None:
        value['prompt_progress'] = progress
    return value


def llama_choice(delta, finish=None):
    return {'finish_reason': finish, 'index': 0, 'delta': delta}


def case_reasoning():
    cid = 'chatcmpl-LcpSynthReason0002Qw3nR8xZ'
    chunks = [
        llama_chunk(cid, [llama_choice({'role': 'assistant', 'content': None})],
                    progress={'total': 52, 'cache': 0, 'processed': 52, 'time_ms': 48}),
        llama_chunk(cid, [llama_choice({'role': 'assistant', 'content': None})], timings=llama_timings(1)),
        llama_chunk(cid, [llama_choice({'reasoning_content': 'Two plus two'})], timings=llama_timings(4)),
        llama_chunk(cid, [llama_choice({'reasoning_content': ' is four;'})], timings=llama_timings(8)),
        llama_chunk(cid, [llama_choice({'reasoning_content': ' keep it short.'})], timings=llama_timings(12)),
        # An empty reasoning piece is no reasoning: reasoningTokens must stay at 12.
        llama_chunk(cid, [llama_choice({'content': '2 + 2 = 4', 'reasoning_content': ''})], timings=llama_timings(19)),
        llama_chunk(cid, [llama_choice({'content': '.'})], timings=llama_timings(20)),
        llama_chunk(cid, [llama_choice({}, 'stop')], timings=llama_timings(21)),
        llama_chunk(cid, [], usage_value={'completion_tokens': 21, 'prompt_tokens': 52, 'total_tokens': 73},
                    timings=llama_timings(21)),
    ]
    final_timings = {
        'cache_n': 0, 'prompt_n': 52, 'prompt_ms': 48.112, 'prompt_per_token_ms': 0.925231,
        'prompt_per_second': 1080.81, 'predicted_n': 21, 'predicted_ms': 430.5,
        'predicted_per_token_ms': 20.5, 'predicted_per_second': 48.780488,
    }
    result = completion(
        cid, QWEN,
        choice_result(0, content='2 + 2 = 4.', reasoning='Two plus two is four; keep it short.', finish='stop'),
        usage(52, 21, 73), timings=final_timings, reasoning_tokens=12,
    )
    return ''.join(event(c) for c in chunks) + DONE, result


def tool(index, arguments, cid=None, name=None, **extra):
    value = {'index': index}
    if cid is not None:
        value.update({'id': cid, 'type': 'function'})
    value.update(extra)
    function = {'name': name, 'arguments': arguments} if name is not None else {'arguments': arguments}
    value['function'] = function
    return value


def case_tool_calls_interleaved():
    cid = 'chatcmpl-CmbSynthTools0003xYzAbCdEfGh'
    a, b = 'call_Wx1qT7mZp3LkR9sVb2NcY4hD', 'call_Qe8uJ5nHt2GfD6aKc1XoP0vB'
    chunks = [
        chunk(cid, GPT, [choice({'role': 'assistant', 'content': None, 'refusal': None})]),
        chunk(cid, GPT, [choice({'tool_calls': [tool(0, '', a, 'get_weather')]})]),
        chunk(cid, GPT, [choice({'tool_calls': [tool(1, '', b, 'get_time')]})]),
        chunk(cid, GPT, [choice({'tool_calls': [tool(0, '{"ci')]})]),
        chunk(cid, GPT, [choice({'tool_calls': [tool(1, '{"tz":"Asia/')]})]),
        chunk(cid, GPT, [choice({'tool_calls': [tool(0, 'ty":"Zürich","un')]})]),
        # Two fragments in one delta, the later call first.
        chunk(cid, GPT, [choice({'tool_calls': [tool(1, 'Tokyo"}'), tool(0, 'it":"cel')]})]),
        chunk(cid, GPT, [choice({'tool_calls': [tool(0, 'sius"}')]})]),
        chunk(cid, GPT, [choice({}, 'tool_calls')]),
        chunk(cid, GPT, [], usage={'prompt_tokens': 95, 'completion_tokens': 40, 'total_tokens': 135,
                                   'prompt_tokens_details': {'cached_tokens': 64, 'audio_tokens': 0},
                                   'completion_tokens_details': {'reasoning_tokens': 0, 'audio_tokens': 0}}),
    ]
    calls = [
        call(0, a, 'get_weather', '{"city":"Zürich","unit":"celsius"}', {'city': 'Zürich', 'unit': 'celsius'}),
        call(1, b, 'get_time', '{"tz":"Asia/Tokyo"}', {'tz': 'Asia/Tokyo'}),
    ]
    result = completion(cid, GPT, choice_result(0, tool_calls=calls, finish='tool_calls'),
                        usage(95, 40, 135, cached=64, reasoning=0))
    return ''.join(event(c) for c in chunks) + DONE, result


def case_usage_on_finish():
    # DeepSeek/Mistral: usage rides on the finish chunk; there is no usage-only chunk.
    cid = 'f3b6c2a8-5d41-4e0b-9c7a-2e8d1f4b6a90'
    model = 'deepseek-chat'
    fp = 'fp_eaab8d114b_prod0820_fp8_kvcache'

    def ds(choices, usage_value=None):
        return {'id': cid, 'object': 'chat.completion.chunk', 'created': CREATED, 'model': model,
                'system_fingerprint': fp, 'choices': choices, 'usage': usage_value}

    chunks = [
        ds([choice({'role': 'assistant', 'content': ''})]),
        ds([choice({'content': 'Hello'})]),
        ds([choice({'content': ', world'})]),
        ds([choice({'content': ''}, 'stop')], {
            'prompt_tokens': 10, 'completion_tokens': 3, 'total_tokens': 13,
            'prompt_tokens_details': {'cached_tokens': 8},
            'prompt_cache_hit_tokens': 8, 'prompt_cache_miss_tokens': 2,
        }),
    ]
    result = completion(cid, model, choice_result(0, content='Hello, world', finish='stop'), usage(10, 3, 13, cached=8))
    return ''.join(event(c) for c in chunks) + DONE, result


def case_groq_usage():
    # Groq: usage only under x_groq.usage on the finish chunk (no top-level usage anywhere).
    cid = 'chatcmpl-7a1e2b3c-4d5e-4f60-8a9b-0c1d2e3f4a5b'
    model = 'llama-3.3-70b-versatile'
    request = 'req_01synthgroq0005abcdefghij'

    def gq(choices, **extra):
        value = {'id': cid, 'object': 'chat.completion.chunk', 'created': CREATED, 'model': model,
                 'system_fingerprint': 'fp_f8b414701e', 'choices': choices}
        value.update(extra)
        return value

    chunks = [
        gq([choice({'role': 'assistant', 'content': ''})], x_groq={'id': request, 'seed': 123456789}),
        gq([choice({'content': 'Hi'})]),
        gq([choice({'content': ' there!'})]),
        gq([choice({}, 'stop')], x_groq={'id': request, 'usage': {
            'queue_time': 0.012, 'prompt_tokens': 18, 'prompt_time': 0.002, 'completion_tokens': 4,
            'completion_time': 0.01, 'total_tokens': 22, 'total_time': 0.012}}),
    ]
    result = completion(cid, model, choice_result(0, content='Hi there!', finish='stop'), usage(18, 4, 22))
    return ''.join(event(c) for c in chunks) + DONE, result


def case_n2():
    cid = 'chatcmpl-CmbSynthN2000006pQrStUvWxYz'
    t = 'call_N2a8Kd3LmQ7pR1sT5vWx9yZb'
    chunks = [
        chunk(cid, GPT, [choice({'role': 'assistant', 'content': ''}, index=0)]),
        chunk(cid, GPT, [choice({'role': 'assistant', 'content': None}, index=1)]),
        chunk(cid, GPT, [choice({'content': 'Paris is '}, index=0)]),
        # A call without arguments: "" parses as {}.
        chunk(cid, GPT, [choice({'tool_calls': [tool(0, '', t, 'get_time')]}, index=1)]),
        chunk(cid, GPT, [choice({'content': 'sunny.'}, index=0)]),
        # Both finishes in one chunk, choice 1 first.
        chunk(cid, GPT, [choice({}, 'tool_calls', index=1), choice({}, 'stop', index=0)]),
        chunk(cid, GPT, [], usage={'prompt_tokens': 30, 'completion_tokens': 14, 'total_tokens': 44}),
    ]
    first = choice_result(0, content='Paris is sunny.', finish='stop')
    second = choice_result(1, tool_calls=[call(0, t, 'get_time', '', {})], finish='tool_calls')
    result = completion(cid, GPT, first, usage(30, 14, 44), others=[second])
    return ''.join(event(c) for c in chunks) + DONE, result


def case_refusal():
    cid = 'chatcmpl-CmbSynthRefusal07hIjKlMnOpQ'
    model = 'gpt-4o-2024-08-06'
    fp = 'fp_2a322c9ffc'
    chunks = [
        chunk(cid, model, [choice({'role': 'assistant', 'content': None, 'refusal': ''}, logprobs={'content': None, 'refusal': []})], fingerprint=fp),
        chunk(cid, model, [choice({'refusal': "I'm sorry, "})], fingerprint=fp),
        chunk(cid, model, [choice({'refusal': "I can't help with that."})], fingerprint=fp),
        chunk(cid, model, [choice({}, 'stop')], fingerprint=fp),
        chunk(cid, model, [], usage={'prompt_tokens': 25, 'completion_tokens': 9, 'total_tokens': 34}, fingerprint=fp),
    ]
    result = completion(cid, model, choice_result(0, refusal="I'm sorry, I can't help with that.", finish='stop'),
                        usage(25, 9, 34))
    return ''.join(event(c) for c in chunks) + DONE, result


def case_error_payload():
    cid = 'chatcmpl-CmbSynthError09rStUvWxYzAb'
    chunks = [
        chunk(cid, GPT, [choice({'role': 'assistant', 'content': '', 'refusal': None})]),
        chunk(cid, GPT, [choice({'content': 'Partial '})]),
        chunk(cid, GPT, [choice({'content': 'answer'})]),
    ]
    error = ('data: {"error":{"message":"The server had an error processing your request. Sorry about that!",'
             '"type":"server_error","param":null,"code":"x"}}\n\n')
    return ''.join(event(c) for c in chunks) + error + DONE, failure('ProviderError', content='Partial answer')


def fox_chunks(cid):
    return [
        chunk(cid, GPT, [choice({'role': 'assistant', 'content': '', 'refusal': None})]),
        chunk(cid, GPT, [choice({'content': 'The quick'})]),
        chunk(cid, GPT, [choice({'content': ' brown fox'})]),
    ]


def case_truncated_mid_line():
    cid = 'chatcmpl-CmbSynthCutLine10aBcDeFgHiJ'
    last = event(chunk(cid, GPT, [choice({'content': ' jumps'})]))
    cut = last.index('" ju') + len('" ju')  # inside the JSON of a data: line, before its line end
    wire = ''.join(event(c) for c in fox_chunks(cid)) + last[:cut]
    return wire, failure('StreamClosedEarlyError', content='The quick brown fox')


def case_truncated_mid_event():
    cid = 'chatcmpl-CmbSynthCutEvent11kLmNoPqRs'
    last = event(chunk(cid, GPT, [choice({'content': ' jumps'})]))
    wire = ''.join(event(c) for c in fox_chunks(cid)) + last[:-1]  # the data: line ends; no blank line
    return wire, failure('StreamClosedEarlyError', content='The quick brown fox jumps')


def case_truncated_before_done():
    cid = 'chatcmpl-CmbSynthNoDone12tUvWxYzAbC'
    chunks = fox_chunks(cid) + [
        chunk(cid, GPT, [choice({'content': ' jumps.'})]),
        chunk(cid, GPT, [choice({}, 'stop')]),
        chunk(cid, GPT, [], usage={'prompt_tokens': 12, 'completion_tokens': 5, 'total_tokens': 17}),
    ]
    # Only [DONE] is missing: every choice finished and the usage that `usage: null` promised came, so
    # the reply is whole (the rule for servers that end without [DONE], docs/dialects.md).
    return ''.join(event(c) for c in chunks), completion(
        cid, GPT, choice_result(0, content='The quick brown fox jumps.', finish='stop'), usage(12, 5, 17),
    )


def case_truncated_in_arguments():
    cid = 'chatcmpl-CmbSynthCutArgs13dEfGhIjKlM'
    a, b = 'call_Tr1aQ2bW3cE4dR5eT6fY7gUh', 'call_Tr2iO3jP4kA5lS6mD7nF8oGj'
    chunks = [
        chunk(cid, GPT, [choice({'role': 'assistant', 'content': None, 'refusal': None})]),
        chunk(cid, GPT, [choice({'content': 'Checking both.'})]),
        chunk(cid, GPT, [choice({'tool_calls': [tool(0, '', a, 'get_weather')]})]),
        chunk(cid, GPT, [choice({'tool_calls': [tool(0, '{"city":"Oslo"}')]})]),
        chunk(cid, GPT, [choice({'tool_calls': [tool(1, '', b, 'get_weather')]})]),
        chunk(cid, GPT, [choice({'tool_calls': [tool(1, '{"city":"Ber')]})]),
        chunk(cid, GPT, [choice({'tool_calls': [tool(1, 'gen","un')]})]),
    ]
    partial_calls = [
        {'index': 0, 'id': a, 'name': 'get_weather', 'arguments': '{"city":"Oslo"}'},
        {'index': 1, 'id': b, 'name': 'get_weather', 'arguments': '{"city":"Bergen","un'},
    ]
    return ''.join(event(c) for c in chunks), failure('StreamClosedEarlyError', content='Checking both.',
                                                      tool_calls=partial_calls)


def case_extra_fields():
    cid = 'chatcmpl-CmbSynthExtra14aBcDeFgHiJkLm'
    t = 'call_Xf4bQ9cW2eR7tY1uI5oP3aSd'
    noise = {'region': 'eu-west', 'content': 'not part of the reply', 'usage': {'prompt_tokens': 1}}
    filters = {'hate': {'filtered': False, 'severity': 'safe'}}

    def xchoice(delta, finish=None, **extra):
        value = choice(delta, finish, content_filter_results=filters, native_finish_reason=None,
                       x_choice={'finish_reason': 'length', 'index': 7})
        value.update(extra)
        return value

    chunks = [
        chunk(cid, GPT, [xchoice({'role': 'assistant', 'content': '', 'refusal': None, 'annotations': [],
                                  'audio': None, 'x_delta': {'content': 'ignore me'}})],
              obfuscation='a1', x_request=noise),
        chunk(cid, GPT, [xchoice({'content': 'Looking that up.', 'x_delta': {'reasoning_content': 'no'}},
                                 logprobs={'content': [{'token': 'Looking', 'logprob': -0.01, 'bytes': [76, 111], 'top_logprobs': []}],
                                           'refusal': None})],
              obfuscation='b22', x_request=noise),
        chunk(cid, GPT, [xchoice({'tool_calls': [{
            'index': 0, 'id': t, 'type': 'function', 'x_call': True,
            'extra_content': {'google': {'thought_signature': 'c2lnbmF0dXJl'}},
            'function': {'name': 'lookup', 'arguments': '', 'strict': True, 'x_fn': {'arguments': 'not these'}},
        }]})], x_request=noise),
        chunk(cid, GPT, [xchoice({'tool_calls': [{
            'index': 0, 'x_call': {'n': 1}, 'function': {'arguments': '{"q":"rxjs"}', 'x_fn': None},
        }]})], x_request=noise),
        chunk(cid, GPT, [xchoice({}, 'tool_calls', native_finish_reason='tool_use', stop_reason=None)], x_request=noise),
        chunk(cid, GPT, [], usage={
            'prompt_tokens': 40, 'completion_tokens': 12, 'total_tokens': 52, 'cost': 0.00012,
            'x_usage': {'prompt_tokens': 999},
            'prompt_tokens_details': {'cached_tokens': 16, 'audio_tokens': 0, 'x_detail': 1},
            'completion_tokens_details': {'reasoning_tokens': 2, 'x_detail': 2},
        }, x_request=noise),
    ]
    calls = [call(0, t, 'lookup', '{"q":"rxjs"}', {'q': 'rxjs'})]
    result = completion(cid, GPT, choice_result(0, content='Looking that up.', tool_calls=calls, finish='tool_calls'),
                        usage(40, 12, 52, cached=16, reasoning=2))
    return ''.join(event(c) for c in chunks) + DONE, result


SYNTHETIC = {
    'text': case_text,
    'reasoning': case_reasoning,
    'tool-calls-interleaved': case_tool_calls_interleaved,
    'usage-on-finish': case_usage_on_finish,
    'groq-usage': case_groq_usage,
    'n2': case_n2,
    'refusal': case_refusal,
    'crlf': case_crlf,
    'error-payload': case_error_payload,
    'truncated-mid-line': case_truncated_mid_line,
    'truncated-mid-event': case_truncated_mid_event,
    'truncated-before-done': case_truncated_before_done,
    'truncated-in-arguments': case_truncated_in_arguments,
    'extra-fields': case_extra_fields,
}


def build_synthetic():
    for name, case in SYNTHETIC.items():
        wire, result = case()
        write_bytes(os.path.join(MARBLES, 'openai', name + '.sse'), wire.encode('utf-8'))
        write_json(os.path.join(MARBLES, 'openai', name + '.expected.json'), result)
        print(f'openai/{name}.sse')


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    shared = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'shared')
    parser.add_argument('--recordings', default=os.path.join(shared, 'recordings', 'ai-sdk'))
    parser.add_argument('--examples', default=os.path.join(shared, 'reference', 'dialect-examples'))
    parser.add_argument('--mirror', default='/work/.mirror/vercel+ai/repo',
                        help='a git directory holding vercel/ai at ' + CORPUS_COMMIT)
    parser.add_argument('--ollama-mirror', default='/work/.mirror/attogram+ollama-bash-lib/repo',
                        help='a git directory holding attogram/ollama-bash-lib at ' + OLLAMA_COMMIT)
    parser.add_argument('--genai-mirror', default='/work/.mirror/googleapis+js-genai/repo',
                        help='a git directory holding googleapis/js-genai at ' + GENAI_COMMIT)
    parser.add_argument('--only', choices=['openai', 'real', 'dialects', 'corpus'])
    options = parser.parse_args(argv)
    if options.only in (None, 'openai'):
        build_synthetic()
    if options.only in (None, 'real'):
        rebuild_real(options.recordings)
    if options.only in (None, 'dialects'):
        os.makedirs(os.path.join(MARBLES, 'dialects'), exist_ok=True)
        copy_examples(options.examples)
    if options.only in (None, 'corpus'):
        build_corpus(options.mirror, options.genai_mirror, options.ollama_mirror)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
