/** Attachments, discussions and comments (migration 0011). Times are epoch ms. */
export interface AttachmentTable {
  id: number;
  sheet_id: number;
  /** SHEET, ROW or COMMENT */
  parent_type: string;
  parent_id: number;
  discussion_id: number | null;
  /** The id of a file's first version; its versions share it. */
  lineage_id: number;
  /** 1 on the newest version (the one its parent lists) */
  current: number;
  attachment_type: string;
  attachment_sub_type: string | null;
  name: string;
  description: string | null;
  url: string | null;
  blob_key: string | null;
  size: number | null;
  mime_type: string | null;
  created_at: number;
  created_by: number | null;
}

export interface DiscussionTable {
  id: number;
  sheet_id: number;
  /** SHEET or ROW */
  parent_type: string;
  parent_id: number;
  title: string;
  created_at: number;
  created_by: number | null;
}

export interface CommentTable {
  id: number;
  sheet_id: number;
  discussion_id: number;
  text: string;
  created_at: number;
  created_by: number | null;
  modified_at: number;
}

/** Secrets every process shares (e.g. the key of signed URLs), made on first use. */
export interface ServerSecretTable {
  name: string;
  value: string;
}

export interface ProfileImageTable {
  user_id: number;
  /** The imageId of the user's profileImage (opaque, as cell image ids). */
  image_id: string;
  blob_key: string;
  width: number;
  height: number;
  mime_type: string;
  created_at: number;
}

export interface AttachmentTables {
  server_secrets: ServerSecretTable;
  profile_images: ProfileImageTable;
  attachments: AttachmentTable;
  discussions: DiscussionTable;
  comments: CommentTable;
}
