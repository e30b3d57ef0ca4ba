import { createRequire } from 'node:module';
import type OpenAI from 'openai';

/**
 * The `openai` SDK's client for the round trips: its current major (`openai-current`, which needs
 * Node 22) where the Node in use allows, else the last that runs on Node 20, as spec/support/openaiSdk.ts
 * chooses. The types are 6's.
 */
const requireSdk = createRequire(__filename);
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

export const OpenAIClient: typeof OpenAI = (requireSdk(NODE_MAJOR >= 22 ? 'openai-current' : 'openai') as { default: typeof OpenAI })
  .default;
