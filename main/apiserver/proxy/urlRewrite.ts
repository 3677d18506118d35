// The link rewriting of apimachinery's proxy Transport (pkg/util/proxy/transport.go): a redirect
// Location or an HTML attribute that points at the backend itself (an absolute path, or a URL
// naming the backend's host or the host the client used) is moved under the proxy prefix, so pages
// served through `…/services/web/proxy/` keep working in a browser. Other hosts and relative links
// are left alone. HTML is scanned for the same tag/attribute table upstream uses; unlike upstream's
// re-serializing tokenizer, untouched markup is kept byte for byte.
import { posix } from 'node:path';

export interface RewriteContext {
  /** what the client requested up to the backend path, e.g. `/api/v1/namespaces/default/services/web/proxy/` */
  pathPrepend: string;
  /** `ip:port` of the backend */
  backendHost: string;
  /** the Host header the client sent */
  requestHost: string;
}

/** One URL as upstream's rewriteURL changes it; unparseable or foreign URLs come back unchanged. */
export function rewriteUrl(target: string, context: RewriteContext): string {
  const match = /^(?:([a-zA-Z][a-zA-Z0-9+.-]*):)?(?:\/\/([^/?#]*))?([^?#]*)(\?[^#]*)?(#.*)?$/.exec(target);
  if (!match) return target;
  const [, scheme = '', host, path = '', query = '', fragment = ''] = match;
  // `mailto:x`, `javascript:…`: Go parses these as opaque URLs with an empty path
  if (scheme !== '' && host === undefined) return target;
  const urlHost = host ?? '';
  const isDifferentHost = urlHost !== '' && urlHost !== context.backendHost && urlHost !== context.requestHost;
  if (isDifferentHost || !path.startsWith('/')) return target;
  // upstream's Transport has no scheme/host of its own (server-side request URLs carry none), so
  // the URL loses them unless it already names the host the client used
  const keepOrigin = urlHost !== '' && urlHost === context.requestHost;
  const origin = keepOrigin ? `${scheme === '' ? '' : scheme + ':'}//${urlHost}` : '';
  if (path.startsWith(context.pathPrepend)) return origin + path + query + fragment;
  let joined = posix.join(context.pathPrepend, path);
  if (path.endsWith('/') && !joined.endsWith('/')) joined += '/';
  return origin + joined + query + fragment;
}

/** tag → attributes holding URLs (upstream atomsToAttrs) */
const URL_ATTRIBUTES = new Map<string, Set<string>>([
  ['a', new Set(['href'])],
  ['applet', new Set(['codebase'])],
  ['area', new Set(['href'])],
  ['audio', new Set(['src'])],
  ['base', new Set(['href'])],
  ['blockquote', new Set(['cite'])],
  ['body', new Set(['background'])],
  ['button', new Set(['formaction'])],
  ['command', new Set(['icon'])],
  ['del', new Set(['cite'])],
  ['embed', new Set(['src'])],
  ['form', new Set(['action'])],
  ['frame', new Set(['longdesc', 'src'])],
  ['head', new Set(['profile'])],
  ['html', new Set(['manifest'])],
  ['iframe', new Set(['longdesc', 'src'])],
  ['img', new Set(['longdesc', 'src', 'usemap'])],
  ['input', new Set(['src', 'usemap', 'formaction'])],
  ['ins', new Set(['cite'])],
  ['link', new Set(['href'])],
  ['object', new Set(['classid', 'codebase', 'data', 'usemap'])],
  ['q', new Set(['cite'])],
  ['script', new Set(['src'])],
  ['source', new Set(['src'])],
  ['video', new Set(['poster', 'src'])],
]);

/** elements whose content is text up to their end tag, never markup */
const RAW_TEXT_ELEMENTS = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext']);

/** Rewrites the URL attributes of an HTML document (assumed UTF-8, as upstream assumes). */
export function rewriteHtml(html: string, rewrite: (url: string) => string): string {
  let output = '';
  let position = 0;
  while (position < html.length) {
    const open = html.indexOf('<', position);
    if (open < 0) break;
    output += html.slice(position, open);
    if (html.startsWith('<!--', open)) {
      const close = html.indexOf('-->', open + 4);
      const end = close < 0 ? html.length : close + 3;
      output += html.slice(open, end);
      position = end;
      continue;
    }
    const tagName = /^<([a-zA-Z][a-zA-Z0-9-]*)/.exec(html.slice(open, open + 64));
    if (!tagName) {
      // end tags, doctype, processing instructions and a stray '<' pass through
      output += '<';
      position = open + 1;
      continue;
    }
    const name = tagName[1].toLowerCase();
    const tag = scanTag(html, open + tagName[0].length);
    const attributes = URL_ATTRIBUTES.get(name);
    let text = html.slice(open, tag.end);
    if (attributes) text = rewriteAttributes(html, open, tag, attributes, rewrite);
    output += text;
    position = tag.end;
    if (RAW_TEXT_ELEMENTS.has(name) && !tag.selfClosing) {
      const closing = new RegExp(`</${name}[\\s/>]`, 'i');
      const rest = html.slice(position);
      const found = closing.exec(rest);
      const end = found ? position + found.index : html.length;
      output += html.slice(position, end);
      position = end;
    }
  }
  return output + html.slice(position);
}

interface ScannedAttribute {
  name: string;
  /** where the value's text starts and ends in the document (inside any quotes) */
  valueStart: number;
  valueEnd: number;
  quote: '"' | "'" | '';
}

interface ScannedTag {
  end: number;
  selfClosing: boolean;
  attributes: ScannedAttribute[];
}

function scanTag(html: string, start: number): ScannedTag {
  const attributes: ScannedAttribute[] = [];
  let index = start;
  const skipSpace = () => {
    while (index < html.length && /[\s]/.test(html[index])) index++;
  };
  for (;;) {
    skipSpace();
    if (index >= html.length) return { end: html.length, selfClosing: false, attributes };
    if (html[index] === '>') return { end: index + 1, selfClosing: false, attributes };
    if (html.startsWith('/>', index)) return { end: index + 2, selfClosing: true, attributes };
    if (html[index] === '/') {
      index++;
      continue;
    }
    const nameStart = index;
    while (index < html.length && !/[\s/>=]/.test(html[index])) index++;
    if (index === nameStart) index++; // a lone '=' where a name belongs
    const name = html.slice(nameStart, index).toLowerCase();
    skipSpace();
    if (html[index] !== '=') continue;
    index++;
    skipSpace();
    const quote = html[index] === '"' || html[index] === "'" ? (html[index] as '"' | "'") : '';
    if (quote) {
      const close = html.indexOf(quote, index + 1);
      const valueEnd = close < 0 ? html.length : close;
      attributes.push({ name, valueStart: index + 1, valueEnd, quote });
      index = close < 0 ? html.length : close + 1;
    } else {
      const valueStart = index;
      while (index < html.length && !/[\s>]/.test(html[index])) index++;
      attributes.push({ name, valueStart, valueEnd: index, quote });
    }
  }
}

function rewriteAttributes(html: string, open: number, tag: ScannedTag, names: Set<string>, rewrite: (url: string) => string): string {
  let text = '';
  let cursor = open;
  for (const attribute of tag.attributes) {
    if (!names.has(attribute.name)) continue;
    const raw = html.slice(attribute.valueStart, attribute.valueEnd);
    const value = unescapeEntities(raw);
    const rewritten = rewrite(value);
    if (rewritten === value) continue;
    text += html.slice(cursor, attribute.valueStart) + escapeAttribute(rewritten, attribute.quote);
    cursor = attribute.valueEnd;
  }
  return text + html.slice(cursor, tag.end);
}

const ENTITIES: Record<string, string> = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>' };

function unescapeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|quot|apos|lt|gt);/g, (whole, entity: string) => {
    if (entity.startsWith('#x')) return String.fromCodePoint(parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(parseInt(entity.slice(1), 10));
    return ENTITIES[entity] ?? whole;
  });
}

function escapeAttribute(value: string, quote: '"' | "'" | ''): string {
  let escaped = value.replace(/&/g, '&amp;');
  if (quote === '"') escaped = escaped.replace(/"/g, '&quot;');
  else if (quote === "'") escaped = escaped.replace(/'/g, '&#39;');
  else escaped = escaped.replace(/[\s>"']/g, (character) => `&#${character.codePointAt(0)};`);
  return escaped;
}
