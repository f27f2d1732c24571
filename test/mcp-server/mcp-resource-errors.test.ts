import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

// Issue 45 item 11: resources/read of a bad name answered -32603 (internal
// error) though the docs say -32002 (resource not found). A name that is no
// readable asset, missing or malformed, is -32002 with the studio's code.

let studio: TestStudio;
let client: Client;
beforeAll(async () => {
  studio = await startTestStudio();
  client = new Client({ name: 'resource-errors', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${studio.url}/mcp`)));
});
afterAll(async () => {
  await client?.close();
  await studio?.stop();
});

const readError = async (uri: string): Promise<McpError> => {
  try {
    await client.readResource({ uri });
  } catch (error) {
    return error as McpError;
  }
  throw new Error(`${uri} was read`);
};

describe('resources/read refusals', () => {
  it('answers -32002 for a missing asset and for a name that is no asset name', async () => {
    const missing = await readError('svc://history/missing.png');
    expect(missing.code).toBe(-32002);
    expect(missing.message).toMatch(/NOT_FOUND/);
    for (const name of ['..%2F..%2Fstudio.db', '%00.png', 'a'.repeat(300)]) {
      const bad = await readError(`svc://history/${name}`);
      expect(bad.code, name).toBe(-32002);
    }
  });
});
