// What the desktop window may load, open and ask for. Pure decisions, applied by the shell to
// Electron's will-navigate / will-redirect / setWindowOpenHandler / permission handlers, following
// Electron's security checklist (electronjs.org/docs/latest/tutorial/security): the window only ever
// shows the cluster's own UI origin; everything else goes to the user's browser or nowhere.

/** The origin of a URL ("https://127.0.0.1:6443"), or undefined when it has none (data:, about:, junk). */
export function originOf(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
  return parsed.origin;
}

/** True when `url` is on the app's origin (scheme, host and port all equal). */
export function isAppUrl(url: string, appOrigin: string | undefined): boolean {
  if (appOrigin === undefined) return false;
  const origin = originOf(url);
  return origin !== undefined && origin === originOf(appOrigin);
}

/** http(s) URLs only: the only ones handed to the OS (a file: or custom-scheme URL could run programs). */
export function isExternalWebUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return (parsed.protocol === 'https:' || parsed.protocol === 'http:') && parsed.hostname !== '';
  } catch {
    return false;
  }
}

/** In-window navigation: only within the app's origin. */
export function mayNavigate(url: string, appOrigin: string | undefined): boolean {
  return isAppUrl(url, appOrigin);
}

export interface WindowOpenDecision {
  action: 'deny';
  /** Set when the link should open in the user's browser instead. */
  openExternally?: string;
}

/** New windows are never created; web links (the app's own too: docs, Ingress URLs) go to the browser. */
export function windowOpenDecision(url: string): WindowOpenDecision {
  return isExternalWebUrl(url) ? { action: 'deny', openExternally: url } : { action: 'deny' };
}

/** Permissions the app's pages may have: clipboard read/write (the terminals' copy/paste). */
const grantedPermissions: ReadonlySet<string> = new Set(['clipboard-read', 'clipboard-sanitized-write']);

export function mayGrantPermission(permission: string, requestingUrl: string, appOrigin: string | undefined): boolean {
  return grantedPermissions.has(permission) && isAppUrl(requestingUrl, appOrigin);
}

/**
 * The Content-Security-Policy the shell adds to the app's responses when the server sent none.
 * Monaco and xterm need inline styles and blob: workers; WebSockets (exec, logs, watch) are
 * same-origin, which 'self' covers for ws(s) in CSP level 3.
 */
export const defaultContentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

/**
 * Response headers with a CSP guaranteed: the server's own policy is kept (it knows its pages),
 * and the default is added when it is missing. Header names are matched case-insensitively.
 */
export function withContentSecurityPolicy(headers: Record<string, string | string[]> | undefined): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = { ...(headers ?? {}) };
  const present = Object.keys(result).some((name) => name.toLowerCase() === 'content-security-policy');
  if (!present) result['Content-Security-Policy'] = [defaultContentSecurityPolicy];
  return result;
}
