/** Durable jobs (store/jobs.ts): work that must follow a commit, written in its transaction. */
export interface JobTable {
  id: number;
  /** The handler's name (jobs/worker.ts JobHandlers). */
  type: string;
  /** JSON */
  payload: string;
  /** At most one live (not dead) job per key: a second enqueue with the key is a no-op. */
  dedup_key: string | null;
  /** Due when this has passed; while a worker holds the job, the end of its lease. */
  run_at: number;
  /** Claims so far (a claim counts even when its process dies before finishing). */
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  /** The worker holding the job and until when (null when not held). */
  locked_by: string | null;
  locked_until: number | null;
  /** Set when the job gave up after max_attempts; the row stays for inspection. */
  dead_at: number | null;
  created_at: number;
}

export interface JobTables {
  jobs: JobTable;
}
