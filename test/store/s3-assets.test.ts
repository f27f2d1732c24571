import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3AssetStore, s3AssetStoreFromEnv } from '../../src/studio/store/s3/asset-store.js';
import { needsPathStyle, parseAssetStoreUrl, s3SettingsFromEnv } from '../../src/studio/store/s3/settings.js';
import { startS3, type TestS3 } from '../helpers/s3.js';
import { describeAssetStoreContract } from './contracts/asset-store.contract.js';

// The S3-compatible asset store against a real S3 server (s3rver, started here, one for the file):
// the AssetStore contract with a fresh prefix per test, then what only this store has: its
// settings from the environment, its keys, and its errors, which never carry a credential.

const run = promisify(execFile);
const STORE_MODULE = fileURLToPath(new URL('../../src/studio/store/s3/asset-store.ts', import.meta.url));

let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(() => s3?.stop());

const freshPrefix = (): string => `studio-${randomBytes(6).toString('hex')}`;
const hash = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A store on the test server under a fresh prefix, with `env` over the server's variables. */
function storeOn(env: NodeJS.ProcessEnv = {}, prefix = freshPrefix()): S3AssetStore {
  const store = s3AssetStoreFromEnv({ ...s3.env, SVC_ASSET_STORE: `s3://${s3.bucket}/${prefix}`, ...env });
  if (!store) throw new Error('no store');
  return store;
}

describeAssetStoreContract('an S3-compatible bucket (s3rver)', async () => {
  const assets = storeOn();
  return { assets, close: async () => assets.close() };
});

describe('S3 asset store settings', () => {
  it('parses s3://bucket/prefix', () => {
    expect(parseAssetStoreUrl('s3://my-bucket/studio')).toEqual({ bucket: 'my-bucket', prefix: 'studio' });
    expect(parseAssetStoreUrl('s3://my-bucket/team/studio/')).toEqual({ bucket: 'my-bucket', prefix: 'team/studio' });
    expect(parseAssetStoreUrl('s3://my.bucket.example')).toEqual({ bucket: 'my.bucket.example', prefix: '' });
    expect(parseAssetStoreUrl('s3://my-bucket/')).toEqual({ bucket: 'my-bucket', prefix: '' });
  });

  it('refuses a value that is not s3://bucket/prefix, saying what is wrong', () => {
    const refusal = (value: string): string => {
      try {
        parseAssetStoreUrl(value);
      } catch (error) {
        expect(error).toMatchObject({ code: 'INVALID_SETTING', details: { variable: 'SVC_ASSET_STORE' } });
        return (error as Error).message;
      }
      throw new Error(`${value} was accepted`);
    };
    expect(refusal('https://my-bucket/studio')).toMatch(/not an s3:\/\/ URL \(https:\/\/\)/);
    expect(refusal('my-bucket/studio')).toMatch(/not an s3:\/\/ URL;/);
    expect(refusal('s3://')).toMatch(/no bucket named/);
    expect(refusal('s3:///studio')).toMatch(/no bucket named/);
    expect(refusal('s3://My_Bucket/studio')).toMatch(/bucket \("My_Bucket"\) is not a valid S3 bucket name/);
    expect(refusal('s3://ab')).toMatch(/not a valid S3 bucket name/);
    expect(refusal('s3://10.0.0.1/studio')).toMatch(/not a valid S3 bucket name/);
    expect(refusal('s3://my-bucket/a//b')).toMatch(/prefix \("a\/\/b"\) is not valid/);
    expect(refusal('s3://my-bucket/a/../b')).toMatch(/prefix .* is not valid/);
    expect(refusal('s3://my-bucket/a b')).toMatch(/prefix .* is not valid/);
    expect(refusal(`s3://my-bucket/${'p'.repeat(600)}`)).toMatch(/prefix is longer than 512/);
    expect(refusal('s3://my-bucket/studio?versionId=1')).toMatch(/no query or fragment/);
    // Credentials in the URL are refused without being echoed.
    const withKeys = refusal('s3://AKIAEXAMPLEKEY:wJalrXUtnFEMIsecret@my-bucket/studio');
    expect(withKeys).toMatch(/must not hold credentials/);
    expect(withKeys).not.toContain('wJalrXUtnFEMIsecret');
    expect(withKeys).not.toContain('AKIAEXAMPLEKEY');
  });

  it('uses path-style addressing for an IP address or localhost, or when told to', () => {
    expect(needsPathStyle('http://127.0.0.1:9000')).toBe(true);
    expect(needsPathStyle('http://[::1]:9000')).toBe(true);
    expect(needsPathStyle('http://localhost:9000')).toBe(true);
    expect(needsPathStyle('https://s3.us-east-1.amazonaws.com')).toBe(false);
    expect(needsPathStyle('https://minio.example.com')).toBe(false);
    const settings = (env: NodeJS.ProcessEnv) => s3SettingsFromEnv({ SVC_ASSET_STORE: 's3://my-bucket/studio', ...env });
    expect(settings({ AWS_ENDPOINT_URL_S3: 'http://10.1.2.3:9000' })?.forcePathStyle).toBe(true);
    expect(settings({ AWS_ENDPOINT_URL: 'http://localhost:9000' })?.forcePathStyle).toBe(true);
    expect(settings({ AWS_ENDPOINT_URL: 'https://minio.example.com' })?.forcePathStyle).toBe(false);
    expect(settings({ AWS_ENDPOINT_URL: 'https://minio.example.com', SVC_S3_FORCE_PATH_STYLE: '1' })?.forcePathStyle).toBe(true);
    expect(settings({})?.forcePathStyle).toBe(false);
    // The S3 variable wins over the general one.
    expect(settings({ AWS_ENDPOINT_URL_S3: 'https://s3.example.com', AWS_ENDPOINT_URL: 'http://127.0.0.1:1' })).toMatchObject({
      endpoint: 'https://s3.example.com',
      forcePathStyle: false,
    });
  });

  it('reads the AWS variables from the env it is given, not the process', () => {
    expect(s3SettingsFromEnv({})).toBeUndefined();
    expect(s3AssetStoreFromEnv({ SVC_ASSET_STORE: '' })).toBeUndefined();
    expect(
      s3SettingsFromEnv({
        SVC_ASSET_STORE: 's3://my-bucket/studio',
        AWS_REGION: 'eu-west-3',
        AWS_ACCESS_KEY_ID: 'id',
        AWS_SECRET_ACCESS_KEY: 'secret',
        AWS_SESSION_TOKEN: 'token',
      }),
    ).toEqual({
      bucket: 'my-bucket',
      prefix: 'studio',
      region: 'eu-west-3',
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret', sessionToken: 'token' },
      forcePathStyle: false,
    });
    expect(() => s3SettingsFromEnv({ SVC_ASSET_STORE: 's3://my-bucket', AWS_ACCESS_KEY_ID: 'id' })).toThrow(
      expect.objectContaining({ code: 'INVALID_SETTING', details: { variable: 'AWS_SECRET_ACCESS_KEY' } }),
    );
    expect(() => s3SettingsFromEnv({ SVC_ASSET_STORE: 's3://my-bucket', AWS_ENDPOINT_URL: 'ftp://host' })).toThrow(
      /AWS_ENDPOINT_URL: expected an http/,
    );
    const withKeys = () => s3SettingsFromEnv({ SVC_ASSET_STORE: 's3://my-bucket', AWS_ENDPOINT_URL_S3: 'http://id:hidden-secret@host' });
    expect(withKeys).toThrow(/must not hold credentials/);
    expect(withKeys).not.toThrow(/hidden-secret/);
  });

  it('builds its client without the SDK warning about Node versions, leaving other warnings be', { timeout: 60_000 }, async () => {
    // In a process of its own: the SDK checks once per process.
    const stderrOf = async (script: string): Promise<string> => {
      const { stderr } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env } });
      return stderr;
    };
    const ours = await stderrOf(
      `const { s3AssetStoreFromEnv } = await import(${JSON.stringify(STORE_MODULE)});
       s3AssetStoreFromEnv({ SVC_ASSET_STORE: 's3://my-bucket/studio', AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9' }).close();
       if (process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED !== undefined) throw new Error('the variable stayed');
       process.emitWarning('another warning');`,
    );
    expect(ours).not.toContain('NodeVersionSupportWarning');
    expect(ours).toContain('another warning');
    // The SDK's own client, built plainly, warns on a Node before 22 (what the test above would see).
    if (Number(process.versions.node.split('.')[0]) < 22) {
      const plain = await stderrOf(
        `const { S3Client } = await import('@aws-sdk/client-s3'); new S3Client({ region: 'us-east-1' }).destroy();`,
      );
      expect(plain).toContain('NodeVersionSupportWarning');
    }
  });
});

describe('S3 asset store on s3rver', () => {
  it('keeps each file as <prefix>/<space>/<name>, and lists only the names it would write', async () => {
    const prefix = freshPrefix();
    const store = storeOn({}, prefix);
    const client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: s3.env.AWS_ACCESS_KEY_ID, secretAccessKey: s3.env.AWS_SECRET_ACCESS_KEY },
    });
    try {
      await store.create(['a.png'], Buffer.from('image'));
      await store.put('inputs', hash('in'), Buffer.from('in'));
      await store.replace('thumbnails', 'a.webp', Buffer.from('thumb'));
      // Something else under the prefix, which the studio did not write.
      for (const key of [`${prefix}/generated/notes.txt`, `${prefix}/generated/nested/b.png`, `${prefix}/inputs/short`])
        await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: 'x' }));
      expect(await store.names('generated')).toEqual(['a.png']);
      expect(await store.names('inputs')).toEqual([hash('in')]);
      expect(await store.names('thumbnails')).toEqual(['a.webp']);
      expect(await store.usage('generated')).toEqual({ bytes: 5, files: 1 });
      // Another prefix sees nothing of this one.
      expect(await storeOn().names('generated')).toEqual([]);
    } finally {
      client.destroy();
      store.close();
    }
  });

  it('reads a range without the rest, and a limited read without the bytes', async () => {
    const store = storeOn();
    try {
      const video = randomBytes(256 * 1024);
      await store.create(['clip.mp4'], Buffer.from(video));
      const body = await store.open('generated', 'clip.mp4', { start: 1000, end: 1999 });
      if (!body || 'outside' in body) throw new Error('no part');
      expect(body.size).toBe(video.length);
      expect(body.part).toEqual({ start: 1000, end: 1999 });
      const chunks: Buffer[] = [];
      for await (const chunk of body.stream) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).equals(video.subarray(1000, 2000))).toBe(true);
      expect(await store.read('generated', 'clip.mp4', { maxBytes: 1024 })).toEqual({ tooLarge: video.length });
      expect(await store.read('generated', 'clip.mp4', { maxBytes: video.length })).toEqual(video);
    } finally {
      store.close();
    }
  });

  it('refuses to put on a taken name even where the server ignores If-None-Match', async () => {
    const store = storeOn();
    try {
      expect(await store.put('inputs', hash('x'), Buffer.from('first'))).toBe(true);
      expect(await store.put('inputs', hash('x'), Buffer.from('second'))).toBe(false);
      expect(await store.create(['a.png', 'b.png'], Buffer.from('one'))).toBe('a.png');
      expect(await store.create(['a.png'], Buffer.from('two'))).toBeUndefined();
      expect(await store.read('inputs', hash('x'))).toEqual(Buffer.from('first'));
      expect(await store.read('generated', 'a.png')).toEqual(Buffer.from('one'));
    } finally {
      store.close();
    }
  });

  it('writes a new name with If-None-Match: *, and takes a refusal (412) as a taken name', async () => {
    // A server that honours the condition (AWS, MinIO, R2): the name was free when looked at, taken at the PUT.
    const puts: (string | undefined)[] = [];
    const server = createServer((request, response) => {
      request.resume();
      if (request.method === 'HEAD') return void response.writeHead(404).end();
      puts.push(request.headers['if-none-match'] as string | undefined);
      response.writeHead(412, { 'content-type': 'application/xml' });
      response.end(
        '<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message></Error>',
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const store = s3AssetStoreFromEnv({
      ...s3.env,
      AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      SVC_ASSET_STORE: 's3://svc-test/studio',
    })!;
    try {
      expect(await store.put('inputs', hash('x'), Buffer.from('x'))).toBe(false);
      expect(await store.create(['a.png', 'b.png'], Buffer.from('x'))).toBeUndefined();
      expect(puts).toEqual(['*', '*', '*']);
    } finally {
      store.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('fails with the studio error naming the store, never a credential', async () => {
    const secret = 'wJalrXUtnFEMI-not-the-real-secret-K7MDENG';
    const keyId = 'AKIAIOSFODNN7NOTAKEY';
    const wrongKeys = storeOn({ AWS_ACCESS_KEY_ID: keyId, AWS_SECRET_ACCESS_KEY: secret });
    const noBucket = s3AssetStoreFromEnv({ ...s3.env, SVC_ASSET_STORE: 's3://no-such-bucket/studio' });
    // A port nobody listens on: the request never gets an answer.
    const unreachable = s3AssetStoreFromEnv({
      AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9',
      AWS_ACCESS_KEY_ID: keyId,
      AWS_SECRET_ACCESS_KEY: secret,
      SVC_ASSET_STORE: 's3://svc-test/studio',
    });
    const errors: unknown[] = [];
    for (const attempt of [
      () => wrongKeys.read('generated', 'a.png'),
      () => wrongKeys.put('inputs', hash('x'), Buffer.from('x')),
      () => wrongKeys.names('generated'),
      () => noBucket!.replace('thumbnails', 'a.webp', Buffer.from('x')),
      () => unreachable!.exists('generated', 'a.png'),
    ]) {
      errors.push(
        await attempt().then(
          () => 'no error',
          (error: unknown) => error,
        ),
      );
    }
    for (const store of [wrongKeys, noBucket!, unreachable!]) store.close();
    for (const error of errors) {
      expect(error).toMatchObject({ name: 'ServiceError', code: 'SERVICE_UNAVAILABLE' });
      const seen = JSON.stringify({ message: (error as Error).message, details: (error as { details?: unknown }).details });
      expect(seen).toContain('s3://');
      expect(seen).not.toContain(secret);
      expect(seen).not.toContain(keyId);
      expect((error as Error).cause).toBeUndefined();
    }
    expect((errors[0] as Error).message).toMatch(
      /^The asset store s3:\/\/svc-test\/studio-\w+ failed on GetObject studio-\w+\/generated\/a\.png \(\w+, HTTP 403\)\.$/,
    );
    expect((errors[3] as Error).message).toMatch(/NoSuchBucket, HTTP 404/);
    expect((errors[4] as Error).message).toMatch(/ECONNREFUSED/);
  });
});
