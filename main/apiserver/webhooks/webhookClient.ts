// Calls one admission webhook: POSTs the AdmissionReview as JSON over TLS verified against the
// webhook's caBundle (system roots when absent), to `clientConfig.url` or to the Service named in
// `clientConfig.service` — resolved to one ready endpoint the way the service proxy does, dialled
// through the host's pod dialer, with the server name `<service>.<namespace>.svc` as upstream's
// webhook client uses (staging/src/k8s.io/apiserver/pkg/util/webhook/client.go). The request URL
// carries `?timeout=<n>s` and the call is abandoned after timeoutSeconds. Errors read like Go's
// (`Post "https://…": context deadline exceeded`) because upstream wraps them into its messages.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { isRecord } from '../../../shared/kubernetes/types';
import { ApiError } from '../apiError';
import { resolveServiceLocation, type ProxyLookup } from '../proxy/proxyLocation';

/** How the API server reaches pods (main/network's PodDialer has this shape). */
export interface WebhookDialer {
  dial(ip: string, port: number): Promise<Socket>;
}

export interface WebhookEndpoint {
  /** the URL as upstream prints it in errors, with `?timeout=…` */
  url: string;
  servername: string;
  path: string;
  connect(): Promise<Socket>;
}

export interface WebhookNetwork {
  lookup: ProxyLookup;
  dialer?: WebhookDialer;
}

const maxResponseBytes = 3 * 1024 * 1024;

/** Where the webhook lives; throws Error with the text upstream would wrap. */
export function webhookEndpoint(clientConfig: unknown, timeoutSeconds: number, network: WebhookNetwork): WebhookEndpoint {
  if (!isRecord(clientConfig)) throw new Error('webhook has no clientConfig');
  const timeoutQuery = `timeout=${timeoutSeconds}s`;
  if (typeof clientConfig.url === 'string') {
    const url = new URL(clientConfig.url);
    url.search = timeoutQuery;
    const port = url.port ? Number(url.port) : 443;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    return { url: url.toString(), servername: host, path: `${url.pathname}${url.search}`, connect: () => dialHost(host, port) };
  }
  const service = isRecord(clientConfig.service) ? clientConfig.service : {};
  const name = String(service.name ?? '');
  const namespace = String(service.namespace ?? '');
  const port = typeof service.port === 'number' ? service.port : 443;
  const path = typeof service.path === 'string' && service.path !== '' ? service.path : '/';
  const servername = `${name}.${namespace}.svc`;
  return {
    url: `https://${servername}:${port}${path}?${timeoutQuery}`,
    servername,
    path: `${path}?${timeoutQuery}`,
    connect: async () => {
      let location;
      try {
        location = resolveServiceLocation(network.lookup, namespace, `https:${name}:${port}`);
      } catch (error) {
        throw new Error(error instanceof ApiError ? error.message : String(error));
      }
      if (typeof location.port !== 'number') throw new Error(`dial tcp: lookup port ${location.port}: unknown port`);
      if (!network.dialer) throw new Error(`dial tcp ${location.host}: no route to the cluster network`);
      return network.dialer.dial(location.ip, location.port);
    },
  };
}

function dialHost(host: string, port: number): Promise<Socket> {
  // tls.connect later wraps this plain socket, so url and service webhooks share one code path.
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host, port });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** POSTs `body` and returns the decoded JSON reply; rejects with Go-like error texts. */
export async function postJson(endpoint: WebhookEndpoint, caBundle: string | undefined, body: Buffer, timeoutSeconds: number): Promise<unknown> {
  const deadline = new Promise<never>((_, reject) => {
    const timer = setTimeout(() => reject(new Error(`Post "${endpoint.url}": context deadline exceeded`)), timeoutSeconds * 1000);
    timer.unref();
  });
  let tlsSocket: TLSSocket | undefined;
  const attempt = (async () => {
    let raw: Socket;
    try {
      raw = await endpoint.connect();
    } catch (error) {
      throw new Error(`Post "${endpoint.url}": ${error instanceof Error ? error.message : String(error)}`);
    }
    const ca = caBundle ? Buffer.from(caBundle, 'base64').toString('utf8') : undefined;
    tlsSocket = tlsConnect({ socket: raw, servername: isIp(endpoint.servername) ? undefined : endpoint.servername, host: endpoint.servername, ca, ALPNProtocols: ['http/1.1'] });
    const secure = tlsSocket;
    return new Promise<unknown>((resolve, reject) => {
      const fail = (error: Error) => reject(new Error(`Post "${endpoint.url}": ${tlsErrorText(error)}`));
      const request = httpRequest(
        {
          method: 'POST',
          path: endpoint.path,
          headers: { Host: endpoint.servername, 'Content-Type': 'application/json', Accept: 'application/json, */*', 'Content-Length': String(body.length) },
          createConnection: () => secure,
        },
        (response: IncomingMessage) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxResponseBytes) response.destroy(new Error('response body too large'));
            else chunks.push(chunk);
          });
          response.on('error', fail);
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = response.statusCode ?? 0;
            if (status < 200 || status >= 300) {
              reject(new Error(`an error on the server ("${text.slice(0, 200)}") has prevented the request from succeeding`));
              return;
            }
            try {
              resolve(JSON.parse(text));
            } catch {
              reject(new Error(`failed to decode the webhook response: ${text.slice(0, 200)}`));
            }
          });
        },
      );
      request.on('error', fail);
      request.end(body);
    });
  })();
  try {
    return await Promise.race([attempt, deadline]);
  } finally {
    tlsSocket?.destroy();
    attempt.catch(() => undefined);
  }
}

function isIp(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}

function tlsErrorText(error: Error): string {
  const code = (error as Error & { code?: string }).code;
  if (code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' || code === 'SELF_SIGNED_CERT_IN_CHAIN' || code === 'DEPTH_ZERO_SELF_SIGNED_CERT' || code === 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY') {
    return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `tls: failed to verify certificate: ${error.message}`;
  return error.message;
}
