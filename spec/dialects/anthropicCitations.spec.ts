import { ofType, readAnthropic } from './anthropicStreams';

/**
 * Citations become `source` events at the stop of the text block they belong to, with the block's
 * range of the reply's content (UTF-16 offsets) as the span: a citation supports its whole block.
 */

const MESSAGE_START = `event: message_start
data: {"type":"message_start","message":{"id":"msg_01Cite","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],\
"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":610,"output_tokens":1}}}

`;
const MESSAGE_END = `event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":40}}

event: message_stop
data: {"type":"message_stop"}

`;

// The citations docs' plain-text document ("The grass is green. The sky is blue.", titled "My
// Document"): the reply is split into text blocks, and each cited block receives its char_location
// citation as a citations_delta (https://platform.claude.com/docs/en/build-with-claude/citations,
// "Streaming support"; the citation's fields: CitationCharLocation in
// https://github.com/anthropics/anthropic-sdk-typescript/blob/main/src/resources/messages/messages.ts).
const DOCUMENT_CITATIONS = `${MESSAGE_START}event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"According to the document, "}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":"","citations":[]}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"citations_delta","citation":{"type":"char_location",\
"cited_text":"The grass is green. ","document_index":0,"document_title":"My Document","start_char_index":0,"end_char_index":20,\
"file_id":null}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"the grass is green"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":", and "}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: content_block_start
data: {"type":"content_block_start","index":3,"content_block":{"type":"text","text":"","citations":[]}}

event: content_block_delta
data: {"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"the sky is blue"}}

event: content_block_delta
data: {"type":"content_block_delta","index":3,"delta":{"type":"citations_delta","citation":{"type":"char_location",\
"cited_text":"The sky is blue.","document_index":0,"document_title":"My Document","start_char_index":20,"end_char_index":36,\
"file_id":null}}}

event: content_block_stop
data: {"type":"content_block_stop","index":3}

event: content_block_start
data: {"type":"content_block_start","index":4,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":4,"delta":{"type":"text_delta","text":"."}}

event: content_block_stop
data: {"type":"content_block_stop","index":4}

${MESSAGE_END}`;

// A text block citing two documents at once: a PDF (page_location) and a custom-content document
// without a title (content_block_location), both in one block
// (https://platform.claude.com/docs/en/build-with-claude/citations, "Citation types").
const TWO_CITATIONS_ONE_BLOCK = `${MESSAGE_START}event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":"","citations":[]}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"type":"page_location",\
"cited_text":"Revenue grew 12% in 2024.","document_index":1,"document_title":"Annual Report","start_page_number":3,"end_page_number":4}}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"type":"content_block_location",\
"cited_text":"Growth: 12%","document_index":2,"document_title":null,"start_block_index":0,"end_block_index":1,"file_id":null}}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Revenue grew by 12%."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

${MESSAGE_END}`;

// A web search answer: text blocks whose citations are web_search_result_location, with url, title,
// encrypted_index and cited_text (https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool,
// "Citations"). The first block holds a character outside the BMP: offsets are UTF-16 code units.
const WEB_CITATION = `${MESSAGE_START}event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Here is what I found 🔎: "}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":"","citations":[]}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"citations_delta","citation":{"type":"web_search_result_location",\
"cited_text":"Claude Elwood Shannon (April 30, 1916 – February 24, 2001) was an American mathematician",\
"url":"https://en.wikipedia.org/wiki/Claude_Shannon","title":"Claude Shannon - Wikipedia",\
"encrypted_index":"Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm"}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Claude Shannon was born on April 30, 1916,\
 in Petoskey, Michigan"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

${MESSAGE_END}`;

// A search_result_location citation: a search result block of the request, by its index, with its
// source (https://platform.claude.com/docs/en/build-with-claude/search-results, "Citation format").
// Here the block arrives whole, its citations in content_block_start, as a gateway that does not
// stream the first piece sends it (a text block's `citations` field: TextBlock in the SDK's types).
const WHOLE_BLOCK = `${MESSAGE_START}event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":"Send your API key in the Authorization header.",\
"citations":[{"type":"search_result_location","source":"https://docs.company.com/api-reference",\
"title":"API Reference - Authentication","cited_text":"All API requests must include an API key in the Authorization header",\
"search_result_index":0,"start_block_index":0,"end_block_index":1}]}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

${MESSAGE_END}`;

// A citation type this library does not know, in a text block (the format documents citations as a
// union that grows: https://platform.claude.com/docs/en/build-with-claude/citations).
const UNKNOWN_CITATION_DELTA =
  '{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta",' +
  '"citation":{"type":"video_location","cited_text":"x","start_second":3}}}';
const UNKNOWN_CITATION = `${MESSAGE_START}event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: ${UNKNOWN_CITATION_DELTA}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Seen at 0:03."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

${MESSAGE_END}`;

const GRASS = { kind: 'document', documentId: '0', title: 'My Document', citedText: 'The grass is green. ', span: { start: 27, end: 45 } };
const SKY = { kind: 'document', documentId: '0', title: 'My Document', citedText: 'The sky is blue.', span: { start: 51, end: 66 } };

describe('anthropic citations', () => {
  it("gives each cited block's citation as a document source spanning that block, whether it came before or after the text", () => {
    const { completion, error } = readAnthropic(DOCUMENT_CITATIONS);
    expect(error).toBeUndefined();
    expect(completion?.content).toBe('According to the document, the grass is green, and the sky is blue.');
    expect(completion?.sources).toEqual([GRASS, SKY]);
    expect(completion?.choices[0]?.sources).toEqual([GRASS, SKY]);
  });

  it("emits a block's sources at its stop, after its text and before the next block's", () => {
    const { events } = readAnthropic(DOCUMENT_CITATIONS);
    expect(events.filter((event) => event.type === 'content' || event.type === 'source')).toEqual([
      { type: 'content', choice: 0, text: 'According to the document, ' },
      { type: 'content', choice: 0, text: 'the grass is green' },
      { type: 'source', choice: 0, source: GRASS },
      { type: 'content', choice: 0, text: ', and ' },
      { type: 'content', choice: 0, text: 'the sky is blue' },
      { type: 'source', choice: 0, source: SKY },
      { type: 'content', choice: 0, text: '.' },
    ]);
  });

  it('keeps every citation of one block (page and content-block locations), in order, a missing title left out', () => {
    const { completion } = readAnthropic(TWO_CITATIONS_ONE_BLOCK);
    expect(completion?.sources).toEqual([
      { kind: 'document', documentId: '1', title: 'Annual Report', citedText: 'Revenue grew 12% in 2024.', span: { start: 0, end: 20 } },
      { kind: 'document', documentId: '2', citedText: 'Growth: 12%', span: { start: 0, end: 20 } },
    ]);
  });

  it('gives a web search citation as a url source, its span in UTF-16 code units', () => {
    const { completion } = readAnthropic(WEB_CITATION);
    expect(completion?.sources).toEqual([
      {
        kind: 'url',
        url: 'https://en.wikipedia.org/wiki/Claude_Shannon',
        title: 'Claude Shannon - Wikipedia',
        citedText: 'Claude Elwood Shannon (April 30, 1916 – February 24, 2001) was an American mathematician',
        // "Here is what I found 🔎: " is 24 characters, 25 code units (🔎 is a surrogate pair).
        span: { start: 25, end: 89 },
      },
    ]);
  });

  it('reads the citations of a block that arrives whole, a search result by its index with its source as the url', () => {
    const { completion } = readAnthropic(WHOLE_BLOCK);
    expect(completion?.content).toBe('Send your API key in the Authorization header.');
    expect(completion?.sources).toEqual([
      {
        kind: 'document',
        documentId: '0',
        url: 'https://docs.company.com/api-reference',
        title: 'API Reference - Authentication',
        citedText: 'All API requests must include an API key in the Authorization header',
        span: { start: 0, end: 46 },
      },
    ]);
  });

  it('gives the sources of a text block the message ended without a stop, spanning the text it reached', () => {
    const open = WEB_CITATION.replace(/event: content_block_stop\ndata: \{"type":"content_block_stop","index":1\}\n\n/, '');
    expect(open).not.toContain('"index":1}');
    const { completion, error } = readAnthropic(open);
    expect(error).toBeUndefined();
    expect(completion?.sources).toMatchObject([{ kind: 'url', span: { start: 25, end: 89 } }]);
    expect((readAnthropic(open, { strict: true }).error as Error).message).toBe(
      'frame 8: message_delta arrived while a content block was open',
    );
  });

  it('makes no source of an unknown citation type: skipped, or passed on with unknownEvents', () => {
    const skipped = readAnthropic(UNKNOWN_CITATION);
    expect(skipped.error).toBeUndefined();
    expect(skipped.completion?.sources).toBeUndefined();
    expect(skipped.events.some((event) => event.type === 'unknown')).toBe(false);
    const passed = readAnthropic(UNKNOWN_CITATION, { unknownEvents: true });
    expect(passed.completion?.sources).toBeUndefined();
    expect(ofType(passed.events, 'unknown')).toEqual([
      { type: 'unknown', event: 'content_block_delta', payload: JSON.parse(UNKNOWN_CITATION_DELTA) },
    ]);
  });

  it('is a ProtocolError for a citations_delta outside a text block, or a citation that is not an object', () => {
    const inThinking = WEB_CITATION.replace(
      '"content_block":{"type":"text","text":"","citations":[]}',
      '"content_block":{"type":"thinking","thinking":""}',
    );
    expect((readAnthropic(inThinking).error as Error).message).toBe('frame 6: citations_delta in content block 1, a thinking block');
    const notObject = WEB_CITATION.replace(/"citation":\{.*?\}\}\}/, '"citation":"x"}}');
    expect((readAnthropic(notObject).error as Error).message).toBe('frame 6: content block 1 citations_delta.citation is not an object');
  });
});
