import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import S3rver from 's3rver';

// A real S3-compatible server for the tests, started by the test: s3rver (a third-party S3 server
// on npm, objects kept in a temporary dir) on a free loopback port, with one bucket. `env` is what
// a studio is given to use it, the usual AWS variables; s3rver's built-in account is S3RVER/S3RVER.

export interface TestS3 {
  readonly endpoint: string;
  readonly bucket: string;
  /** The AWS variables that point a client at this server. */
  readonly env: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

export async function startS3(bucket = 'svc-test'): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 'svc-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const address = (await server.run()) as AddressInfo;
  const endpoint = `http://127.0.0.1:${address.port}`;
  return {
    endpoint,
    bucket,
    env: {
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    },
    async stop() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
