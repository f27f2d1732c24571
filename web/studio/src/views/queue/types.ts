// The contract types the queue panel reads (src/studio/api), as types only.
export type { FinishedJob, FinishedJobsAnswer, InflightJob } from '../../../../../src/studio/api/index.js';
