import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  paginateListObjectsV2,
  type GetObjectCommandOutput,
  type S3Client,
} from '@aws-sdk/client-s3';
import {
  assertStoredName,
  isStoredName,
  partOf,
  type AssetBody,
  type AssetSpace,
  type AssetStore,
  type ByteRange,
  type FileFacts,
  type OutsideFile,
} from '../../media/asset-store.js';
import { newS3Client, statusOf, storeFailure } from './client.js';
import { s3SettingsFromEnv, type S3Settings } from './settings.js';

// The AssetStore port over an S3-compatible bucket (AWS, MinIO, R2, Ceph; s3rver in the tests):
// each file is the object `<prefix>/<space>/<name>`. A PUT is whole or nothing on every S3 server
// (an object is listed only once complete), so a crash never leaves half a file; new names are
// written with `If-None-Match: *` after a look that the name is free, since some servers (s3rver)
// ignore the condition. Reads of part of a file are ranged GETs: nothing past what is asked is
// downloaded.

/** A GET that gets no object: missing (404), or a range outside it (416). */
const MISSING = 404;
const OUTSIDE = 416;
/** A conditional PUT refused: the name is taken (412), or another write to it is under way (409). */
const TAKEN: Readonly<Record<number, false>> = { 409: false, 412: false };

/** `bytes <first>-<last>/<size>` of a ranged answer. */
const CONTENT_RANGE = /^bytes (\d+)-(\d+)\/(\d+)$/;

export class S3AssetStore implements AssetStore {
  private readonly client: S3Client;
  /** `<prefix>/`, or empty for the bucket's root. */
  private readonly base: string;

  constructor(private readonly settings: S3Settings) {
    this.client = newS3Client(settings);
    this.base = settings.prefix ? `${settings.prefix}/` : '';
  }

  /** The object key of a file; its name checked as the local store checks it. */
  private key(space: AssetSpace, name: string): string {
    assertStoredName(space, name);
    return `${this.base}${space}/${name}`;
  }

  /** Runs a request; a failure becomes the studio's error, unless `answers` holds an answer for its HTTP status. */
  private async send<T, A = never>(
    operation: string,
    key: string,
    request: () => Promise<T>,
    answers: Readonly<Record<number, A>> = {},
  ): Promise<T | A> {
    try {
      return await request();
    } catch (error) {
      const status = statusOf(error);
      if (status !== undefined && Object.hasOwn(answers, status)) return answers[status] as A;
      throw storeFailure(error, this.settings, operation, key);
    }
  }

  /** The object's size and time; undefined when it is missing. */
  private head(key: string): Promise<FileFacts | undefined> {
    return this.send(
      'HeadObject',
      key,
      async () => {
        const head = await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: key }));
        return { size: head.ContentLength ?? 0, modifiedAt: head.LastModified?.getTime() };
      },
      { [MISSING]: undefined },
    );
  }

  /** A GET of the object or a range of it; undefined when it is missing, 'outside' when the range holds none of it. */
  private get(key: string, range?: string): Promise<GetObjectCommandOutput | 'outside' | undefined> {
    return this.send(
      'GetObject',
      key,
      () => this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: key, Range: range })),
      { [MISSING]: undefined, [OUTSIDE]: 'outside' as const },
    );
  }

  private async write(space: AssetSpace, name: string, bytes: Buffer, fresh: boolean): Promise<boolean> {
    const key = this.key(space, name);
    if (fresh && (await this.head(key))) return false;
    return this.send(
      'PutObject',
      key,
      async () => {
        await this.client.send(
          new PutObjectCommand({
            Bucket: this.settings.bucket,
            Key: key,
            Body: bytes,
            ContentLength: bytes.length,
            ContentMD5: createHash('md5').update(bytes).digest('base64'),
            ...(fresh ? { IfNoneMatch: '*' } : {}),
          }),
        );
        return true;
      },
      fresh ? TAKEN : {},
    );
  }

  async create(names: readonly string[], bytes: Buffer): Promise<string | undefined> {
    for (const name of names) if (await this.write('generated', name, bytes, true)) return name;
    return undefined;
  }

  put(space: AssetSpace, name: string, bytes: Buffer): Promise<boolean> {
    return this.write(space, name, bytes, true);
  }

  async replace(space: AssetSpace, name: string, bytes: Buffer): Promise<void> {
    await this.write(space, name, bytes, false);
  }

  async read(
    space: AssetSpace,
    name: string,
    options: { readonly maxBytes?: number } = {},
  ): Promise<Buffer | { readonly tooLarge: number } | undefined> {
    const key = this.key(space, name);
    // With a limit, one byte more than it is asked for: the answer's Content-Range tells the size.
    const got = await this.get(key, options.maxBytes === undefined ? undefined : `bytes=0-${options.maxBytes}`);
    if (got === undefined) return undefined;
    // A range from byte 0 holds no byte of an empty object only.
    if (got === 'outside') return Buffer.alloc(0);
    const size = sizeOf(got);
    const body = got.Body as Readable & { transformToByteArray(): Promise<Uint8Array> };
    if (options.maxBytes !== undefined && size > options.maxBytes) {
      body.destroy();
      return { tooLarge: size };
    }
    // s3rver answers a range of an empty object with a length of 1 and no byte: nothing to wait for.
    if (size === 0) {
      body.destroy();
      return Buffer.alloc(0);
    }
    const bytes = await this.send('GetObject', key, () => body.transformToByteArray());
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  open(space: AssetSpace, name: string): Promise<AssetBody | undefined>;
  open(space: AssetSpace, name: string, range?: ByteRange): Promise<AssetBody | OutsideFile | undefined>;
  async open(space: AssetSpace, name: string, range?: ByteRange): Promise<AssetBody | OutsideFile | undefined> {
    const key = this.key(space, name);
    let asked = range;
    if (asked && 'suffix' in asked) {
      // The last n bytes: asked by their place, since some servers (s3rver) read `bytes=-n` as `bytes=0-n`.
      const head = await this.head(key);
      if (!head) return undefined;
      const part = partOf(asked, head.size);
      if (!part) return { size: head.size, outside: true };
      asked = part;
    }
    const got = await this.get(key, asked && `bytes=${asked.start}-${asked.end ?? ''}`);
    if (got === undefined) return undefined;
    if (got === 'outside') {
      const head = await this.head(key);
      return head && { size: head.size, outside: true };
    }
    const stream = got.Body as Readable;
    const answered = CONTENT_RANGE.exec(got.ContentRange ?? '');
    if (!asked || !answered) return { size: sizeOf(got), stream };
    const part = { start: Number(answered[1]), end: Number(answered[2]) };
    const size = Number(answered[3]);
    // s3rver answers a range of an empty object with `bytes 0-0/0` instead of 416.
    if (part.end >= size) {
      stream.destroy();
      return { size, outside: true };
    }
    return { size, part, stream };
  }

  async exists(space: AssetSpace, name: string): Promise<boolean> {
    return (await this.head(this.key(space, name))) !== undefined;
  }

  async remove(space: AssetSpace, name: string): Promise<void> {
    const key = this.key(space, name);
    // S3 answers 204 for a missing key too; 404 from a server that does not is no error either.
    await this.send('DeleteObject', key, () => this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: key })), {
      [MISSING]: undefined,
    });
  }

  /** The files of a space with their sizes, page by page; objects whose names the studio would not write are left out. */
  private async listed(space: AssetSpace): Promise<{ readonly name: string; readonly size: number }[]> {
    const prefix = `${this.base}${space}/`;
    const files: { name: string; size: number }[] = [];
    await this.send('ListObjectsV2', prefix, async () => {
      const pages = paginateListObjectsV2({ client: this.client }, { Bucket: this.settings.bucket, Prefix: prefix, Delimiter: '/' });
      for await (const page of pages) {
        for (const object of page.Contents ?? []) {
          const name = object.Key?.slice(prefix.length);
          if (name && isStoredName(space, name)) files.push({ name, size: object.Size ?? 0 });
        }
      }
    });
    return files;
  }

  async names(space: AssetSpace): Promise<string[]> {
    return (await this.listed(space)).map((file) => file.name);
  }

  stat(space: AssetSpace, name: string): Promise<FileFacts | undefined> {
    return this.head(this.key(space, name));
  }

  async usage(space: AssetSpace): Promise<{ bytes: number; files: number }> {
    const files = await this.listed(space);
    return { bytes: files.reduce((sum, file) => sum + file.size, 0), files: files.length };
  }

  /** A bucket has no free space to tell. */
  capacity(): Promise<undefined> {
    return Promise.resolve(undefined);
  }

  /** Nothing to start: the client opens its connections on the first request and keeps them alive. */
  expectWrite(): () => void {
    return () => {};
  }

  /**
   * Nothing to remove: every file is one PUT (S3 takes up to 5 GiB in one), which leaves nothing
   * behind when it is interrupted; the store never starts a multipart upload, the only kind of
   * write whose parts outlive a crash.
   */
  removeLeftovers(): Promise<number> {
    return Promise.resolve(0);
  }

  /** Closes the client's connections. */
  close(): void {
    this.client.destroy();
  }
}

/** The object's whole size from a GET's answer: the end of its Content-Range, else its length. */
function sizeOf(got: GetObjectCommandOutput): number {
  const answered = CONTENT_RANGE.exec(got.ContentRange ?? '');
  return answered ? Number(answered[3]) : (got.ContentLength ?? 0);
}

/** The S3 asset store SVC_ASSET_STORE asks for, configured by the AWS variables of `env`; undefined when it is unset. */
export function s3AssetStoreFromEnv(env: NodeJS.ProcessEnv): S3AssetStore | undefined {
  const settings = s3SettingsFromEnv(env);
  return settings && new S3AssetStore(settings);
}
