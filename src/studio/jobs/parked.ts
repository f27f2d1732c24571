// A job that parks: its handler stops at a wait (between two status calls)
// and lets its slot go; its row is `waiting` with the time of the next call
// and no lease, and whichever engine claims it then runs its handler again
// from the recorded operation. Thrown by JobContext.waitUntil; code between a
// handler and its wait that catches errors passes it on untouched.

export class JobParked extends Error {
  constructor(
    /** When the job is due again (ms since the epoch). */
    readonly until: number,
  ) {
    super('The job is parked until its next status call.');
    this.name = 'JobParked';
  }
}

export const isParked = (error: unknown): error is JobParked => error instanceof JobParked;
