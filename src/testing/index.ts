// The test kit, `rxjs-llm-stream/testing`: provider streams from a reply, as marble-timed bodies,
// fake fetch / Response / Readable edges and assertions that name what differs. An entry point of
// its own: nothing in the main entry imports it.

export type { TestReply, TestChoice, TestToolCall } from '../dialects/writing/TestReply.js';
export type { ProviderStream } from './ProviderStream.js';
export { providerStream } from './writeProviderStream.js';
export type { ProviderStreamOptions } from './writeProviderStream.js';
export { socketMessages } from './socketMessages.js';
export type { SocketFormat, SocketMessagesOptions } from './socketMessages.js';
export type { ProviderFormat } from '../dialects/writing/wire.js';
export type { Chunking } from './chunking.js';
export type { Fault } from './faults.js';
export type { FaultOutcome, TestPartial, TestPartialChoice, TestPartialCall } from './FaultOutcome.js';
export { UnsupportedReplyError } from '../dialects/writing/UnsupportedReplyError.js';

export { bodyStream, contentTypeOf } from './bodyStream.js';
export type { BodyStreamOptions } from './bodyStream.js';
export { coldBytes } from './coldBytes.js';
export type { ChunkTiming, ColdBytesOptions } from './coldBytes.js';
export { fakeResponse } from './fakeResponse.js';
export type { FakeResponse, FakeResponseOptions } from './fakeResponse.js';
export { fakeFetch } from './fakeFetch.js';
export type { FakeFetch, FakeFetchCall, FakeFetchHandler, FakeFetchOptions } from './fakeFetch.js';
export { fakeReadable } from './fakeReadable.js';
export type { FakeReadable, FakeReadableOptions } from './fakeReadable.js';
export type { FakeBodyState, ServedBody } from './bodyWatch.js';
export { downloadProgress, bodyText } from './downloadProgress.js';
export type { DownloadProgress } from './downloadProgress.js';
export { expectCompletion, expectEvents, ReplyMismatchError } from './expectReply.js';
export type { ReplyDifference } from './replyDiff.js';
export type { ReplyView, ChoiceView, CallView, CutCallView } from './replyView.js';
