import { newRunId } from './event-id.js';
import type { HeldEvents, ReplayCopy, ReplayStore } from './types.js';

/**
 * The replay store in memory: the last `capacity` copies, oldest first, in a
 * ring so publishing is O(1). Ids are per run (a random prefix per buffer, so
 * per process start). The n-th pushed copy has seq n (from 1).
 */
export class ReplayBuffer implements ReplayStore {
  readonly prefix = newRunId();
  readonly dense = true;
  private readonly copies: Array<ReplayCopy | undefined>;
  private start = 0;
  private count = 0;
  /** Seq of the newest copy pushed (0 before the first). */
  lastSeq = 0;

  constructor(readonly capacity: number) {
    this.copies = new Array<ReplayCopy | undefined>(capacity);
  }

  /** Seq of the oldest copy still held (lastSeq + 1 when none is held). */
  get oldestSeq(): number {
    return this.lastSeq - this.count + 1;
  }

  push(copy: ReplayCopy): number {
    this.lastSeq += 1;
    if (this.capacity === 0) return this.lastSeq;
    if (this.count < this.capacity) {
      this.copies[(this.start + this.count) % this.capacity] = copy;
      this.count += 1;
    } else {
      this.copies[this.start] = copy;
      this.start = (this.start + 1) % this.capacity;
    }
    return this.lastSeq;
  }

  read(afterSeq: number | undefined): HeldEvents {
    const { oldestSeq, lastSeq } = this;
    const from = afterSeq === undefined || afterSeq < oldestSeq - 1 || afterSeq > lastSeq ? oldestSeq - 1 : afterSeq;
    const copies: Array<{ seq: number; copy: ReplayCopy }> = [];
    for (let index = from - oldestSeq + 1; index < this.count; index += 1) {
      copies.push({ seq: oldestSeq + index, copy: this.copies[(this.start + index) % this.capacity] as ReplayCopy });
    }
    return { oldestSeq, lastSeq, copies };
  }
}
