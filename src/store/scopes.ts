// Scope names (REFERENCE §2.2). Each route names the one it needs in the route catalog.
export const READ_SCOPES = [
  'config:read',
  'tokens:read',
  'wallets:read',
  'transactions:read',
  'events:read',
] as const;
export const PREPARE_SCOPES = [
  'launches:prepare',
  'swaps:quote',
  'swaps:prepare',
  'claims:prepare',
  'metadata:prepare',
  'announcements:prepare',
  'webhooks:manage',
] as const;
/** Operator scopes: granted only by name, never by `*` (a tenant's key must not manage other keys). */
export const ADMIN_SCOPES = ['admin:keys'] as const;
export const SCOPES = [...READ_SCOPES, ...PREPARE_SCOPES, ...ADMIN_SCOPES] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function isAdminScope(value: string): boolean {
  return (ADMIN_SCOPES as readonly string[]).includes(value);
}
