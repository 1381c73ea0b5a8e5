/** Sign-in and OAuth 2.0 (migration 0013). Times are epoch ms. */
export interface UserPasswordTable {
  user_id: number;
  /** argon2id, PHC string */
  password_hash: string;
  updated_at: number;
}

export interface WebSessionTable {
  /** SHA-256 (hex) of the session cookie's value */
  id_hash: string;
  user_id: number;
  created_at: number;
  expires_at: number;
}

/** A one-time link to set a password (migration 0030). */
export interface PasswordLinkTable {
  /** SHA-256 (hex) of the link's secret */
  id_hash: string;
  user_id: number;
  /** the system admin who made it */
  created_by: number | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface OAuthAppTable {
  id: number;
  org_id: number;
  owner_id: number | null;
  client_id: string;
  secret_salt: string;
  name: string;
  description: string | null;
  launch_url: string | null;
  contact: string | null;
  redirect_url: string;
  created_at: number;
  modified_at: number;
}

export interface OAuthCodeTable {
  /** SHA-256 (hex) of the code */
  code_hash: string;
  app_id: number;
  user_id: number;
  /** space-separated scopes granted */
  scopes: string;
  expires_at: number;
  used_at: number | null;
}

export interface OAuthGrantTable {
  id: number;
  app_id: number;
  user_id: number;
  scopes: string;
  /** the access token currently issued under this grant */
  access_token_id: number;
  /** SHA-256 (hex) of the current refresh token */
  refresh_hash: string;
  created_at: number;
  revoked_at: number | null;
}

export interface OAuthTables {
  user_passwords: UserPasswordTable;
  web_sessions: WebSessionTable;
  password_links: PasswordLinkTable;
  oauth_apps: OAuthAppTable;
  oauth_codes: OAuthCodeTable;
  oauth_grants: OAuthGrantTable;
}
