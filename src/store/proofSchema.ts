/** Proofs, their review requests and the reviewers' actions (migration 0019). Times are epoch ms. */
export interface ProofTable {
  /** the id of this version */
  id: number;
  sheet_id: number;
  row_id: number;
  /** the id of the proof's first version; its versions share it */
  original_id: number;
  /** 1 for the original, counting up */
  version: number;
  /** 1 on the newest version */
  current: number;
  /** 1 when the proof is completed (kept on every version of the proof) */
  is_completed: number;
  created_at: number;
  created_by: number | null;
  modified_at: number;
  modified_by: number | null;
  /** set when the proof was deleted (a tombstone: the id answers 1294) */
  deleted_at: number | null;
}

export interface ProofRequestTable {
  id: number;
  sheet_id: number;
  /** the original id of the proof */
  proof_id: number;
  sent_by: number | null;
  sent_at: number;
  subject: string | null;
  message: string | null;
  cc_me: number;
  is_downloadable: number;
  /** ACTIVE, EXPIRED or PROOF_DELETED */
  status: string;
}

export interface ProofRequestActionTable {
  request_id: number;
  email: string;
  /** PENDING, APPROVED or REJECTED */
  action_status: string;
  acted_at: number | null;
}

export interface ProofSettingsTable {
  sheet_id: number;
  /** 0: the sheet takes no new proofs (1279) */
  enabled: number;
  /** 0: a proof holds one file (1308) */
  multi_image: number;
}

export interface ProofTables {
  proof_settings: ProofSettingsTable;
  proofs: ProofTable;
  proof_requests: ProofRequestTable;
  proof_request_actions: ProofRequestActionTable;
}
