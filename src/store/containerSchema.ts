/**
 * Tables of folders, workspaces, shares and favorites (issue 4). Booleans are 0/1 and times
 * are epoch milliseconds, as everywhere in the store.
 */

/** A folder in a user's home (workspace_id null) or in a workspace (workspace_id set). */
export interface FolderTable {
  id: number;
  org_id: number;
  /** The user whose home holds the folder (for workspace folders: who created it). */
  owner_id: number;
  name: string;
  /** Enclosing folder, or null at the top of the home or workspace. */
  parent_id: number | null;
  /** Workspace holding the folder (at any depth), or null in a home. */
  workspace_id: number | null;
  created_at: number;
  modified_at: number;
}

export interface WorkspaceTable {
  id: number;
  org_id: number;
  owner_id: number;
  name: string;
  created_at: number;
  modified_at: number;
}

/**
 * A share of a sheet or workspace to a user (user_id, or only email while no user has that
 * address) or to a group (group_id). The owner's share is not stored: it is the object's owner.
 */
export interface ShareTable {
  /** Alphanumeric, like the public service's share ids. */
  id: string;
  org_id: number;
  /** 'sheet' or 'workspace' */
  object_type: string;
  object_id: number;
  user_id: number | null;
  /** Lower-case address of a user share (kept even when the user exists, to match later sign-ups). */
  email: string | null;
  group_id: number | null;
  access_level: string;
  created_by: number;
  created_at: number;
  modified_at: number;
}

export interface FavoriteTable {
  user_id: number;
  /** folder, report, sheet, sight, template, workspace */
  object_type: string;
  object_id: number;
  created_at: number;
}

export interface ContainerTables {
  folders: FolderTable;
  workspaces: WorkspaceTable;
  shares: ShareTable;
  favorites: FavoriteTable;
}
