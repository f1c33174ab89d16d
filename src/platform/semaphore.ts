/**
 * At most `size` holders at once; the others wait in arrival order. For work whose memory must be
 * bounded per process whatever the number of requests (image decoding).
 */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1)
      throw new RangeError('Semaphore size must be a positive integer');
  }

  /** Holders now, and callers waiting for a turn. */
  get load() {
    return { active: this.active, waiting: this.waiting.length };
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.active < this.size) {
      this.active++;
      return Promise.resolve();
    }
    // The releasing holder hands its place over directly, so `active` never dips below the queue.
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}
