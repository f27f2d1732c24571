/**
 * The last `capacity` frames, oldest first, in a ring so publishing is O(1).
 * It also owns the sequence: the n-th pushed frame has seq n (from 1).
 */
export class ReplayBuffer {
  private readonly frames: Array<Buffer | undefined>;
  private start = 0;
  private count = 0;
  /** Seq of the newest frame pushed (0 before the first). */
  lastSeq = 0;

  constructor(readonly capacity: number) {
    this.frames = new Array<Buffer | undefined>(capacity);
  }

  /** Seq of the oldest frame still held (lastSeq + 1 when none is held). */
  get oldestSeq(): number {
    return this.lastSeq - this.count + 1;
  }

  push(frame: Buffer): void {
    this.lastSeq += 1;
    if (this.capacity === 0) return;
    if (this.count < this.capacity) {
      this.frames[(this.start + this.count) % this.capacity] = frame;
      this.count += 1;
    } else {
      this.frames[this.start] = frame;
      this.start = (this.start + 1) % this.capacity;
    }
  }

  /** Frames with seq greater than `seq`, oldest first. */
  after(seq: number): Buffer[] {
    const result: Buffer[] = [];
    for (let index = Math.max(0, seq - this.oldestSeq + 1); index < this.count; index += 1) {
      result.push(this.frames[(this.start + index) % this.capacity] as Buffer);
    }
    return result;
  }
}
