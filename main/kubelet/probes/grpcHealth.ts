// A minimal gRPC client for grpc.health.v1.Health/Check over node:http2 (cleartext, as the kubelet's
// grpc probe: credentials are not supported), with the messages encoded by hand:
//   HealthCheckRequest  { string service = 1; }
//   HealthCheckResponse { ServingStatus status = 1; }  UNKNOWN=0 SERVING=1 NOT_SERVING=2 SERVICE_UNKNOWN=3
// Outcomes and texts follow upstream pkg/probe/grpc/grpc.go.
import http2 from 'node:http2';
import { dialErrorText } from '../../../shared/net/dialErrors';
import { goDuration, joinHostPort } from './dialErrors';

export const servingStatusNames = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'];

const grpcCodeNames = [
  'OK',
  'Canceled',
  'Unknown',
  'InvalidArgument',
  'DeadlineExceeded',
  'NotFound',
  'AlreadyExists',
  'PermissionDenied',
  'ResourceExhausted',
  'FailedPrecondition',
  'Aborted',
  'OutOfRange',
  'Unimplemented',
  'Internal',
  'Unavailable',
  'DataLoss',
  'Unauthenticated',
];

function encodeVarint(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  while (rest > 0x7f) {
    bytes.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return bytes;
}

function readVarint(buffer: Buffer, offset: number): [number, number] {
  let value = 0;
  let multiplier = 1;
  let position = offset;
  for (;;) {
    if (position >= buffer.length) throw new Error('truncated varint');
    const byte = buffer[position++];
    value += (byte & 0x7f) * multiplier;
    if ((byte & 0x80) === 0) return [value, position];
    multiplier *= 128;
  }
}

/** A length-prefixed gRPC message holding HealthCheckRequest{service}. */
export function encodeHealthCheckRequest(service: string): Buffer {
  const text = Buffer.from(service, 'utf8');
  const message = text.length === 0 ? Buffer.alloc(0) : Buffer.concat([Buffer.from([0x0a, ...encodeVarint(text.length)]), text]);
  const header = Buffer.alloc(5);
  header.writeUInt8(0, 0);
  header.writeUInt32BE(message.length, 1);
  return Buffer.concat([header, message]);
}

/** HealthCheckResponse.status from one protobuf message (no gRPC prefix); unknown fields are skipped. */
export function decodeHealthCheckResponse(message: Buffer): number {
  let status = 0;
  let offset = 0;
  while (offset < message.length) {
    const [tag, afterTag] = readVarint(message, offset);
    const field = Math.floor(tag / 8);
    const wireType = tag & 7;
    offset = afterTag;
    if (wireType === 0) {
      const [value, next] = readVarint(message, offset);
      if (field === 1) status = value;
      offset = next;
    } else if (wireType === 2) {
      const [length, next] = readVarint(message, offset);
      offset = next + length;
    } else if (wireType === 1) {
      offset += 8;
    } else if (wireType === 5) {
      offset += 4;
    } else {
      throw new Error(`unsupported protobuf wire type ${wireType}`);
    }
  }
  return status;
}

/** The first message of a gRPC response body (5-byte prefix: compressed flag, big-endian length). */
export function firstGrpcMessage(body: Buffer): Buffer {
  if (body.length < 5) throw new Error('response has no gRPC message');
  if (body[0] !== 0) throw new Error('compressed gRPC messages are not supported');
  const length = body.readUInt32BE(1);
  if (body.length < 5 + length) throw new Error('truncated gRPC message');
  return body.subarray(5, 5 + length);
}

function servingStatusName(status: number): string {
  return servingStatusNames[status] ?? String(status);
}

export interface GrpcProbeOutcome {
  healthy: boolean;
  output: string;
}

function headerText(value: string | string[] | number | undefined): string | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value[0] : String(value);
}

/** One Check call with a deadline; never throws. */
export function grpcHealthCheck(host: string, port: number, service: string, timeoutSeconds: number, userAgent: string): Promise<GrpcProbeOutcome> {
  const address = joinHostPort(host, port);
  const timeout = goDuration(timeoutSeconds);
  return new Promise((resolve) => {
    let settled = false;
    let connected = false;
    const session = http2.connect(`http://${address}`);
    const finish = (outcome: GrpcProbeOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      session.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => {
      finish({
        healthy: false,
        output: connected ? `timeout: health rpc did not complete within ${timeout}` : `timeout: failed to connect service "${address}" within ${timeout}: context deadline exceeded`,
      });
    }, timeoutSeconds * 1000);
    session.on('error', (error) => {
      if (!connected) finish({ healthy: false, output: `error: failed to connect service at "${address}": ${dialErrorText(error, address)}` });
      else finish({ healthy: false, output: `error: health rpc probe failed: rpc error: code = Unavailable desc = ${error.message}` });
    });
    session.on('connect', () => {
      connected = true;
    });
    const request = session.request({
      ':method': 'POST',
      ':path': '/grpc.health.v1.Health/Check',
      'content-type': 'application/grpc',
      te: 'trailers',
      'user-agent': userAgent,
      'grpc-timeout': `${Math.max(1, Math.round(timeoutSeconds * 1000))}m`,
    });
    const chunks: Buffer[] = [];
    let grpcStatus: string | undefined;
    let grpcMessage = '';
    let httpStatus = 0;
    const readStatus = (headers: http2.IncomingHttpHeaders): void => {
      const status = headerText(headers['grpc-status']);
      if (status !== undefined) grpcStatus = status;
      const message = headerText(headers['grpc-message']);
      if (message !== undefined) {
        try {
          grpcMessage = decodeURIComponent(message);
        } catch {
          grpcMessage = message;
        }
      }
    };
    request.on('response', (headers) => {
      httpStatus = Number(headers[':status'] ?? 0);
      readStatus(headers);
    });
    request.on('trailers', (trailers) => readStatus(trailers));
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('error', (error) => {
      if (connected) finish({ healthy: false, output: `error: health rpc probe failed: rpc error: code = Unavailable desc = ${error.message}` });
      // A stream cancelled because the session never connected carries the dial error as its cause.
      else finish({ healthy: false, output: `error: failed to connect service at "${address}": ${dialErrorText(error.cause ?? error, address)}` });
    });
    request.on('end', () => {
      if (httpStatus !== 200) {
        finish({ healthy: false, output: `error: health rpc probe failed: rpc error: code = Unknown desc = unexpected HTTP status code received from server: ${httpStatus}` });
        return;
      }
      const code = Number(grpcStatus ?? '2');
      if (code !== 0) {
        const codeName = grpcCodeNames[code] ?? `Code(${code})`;
        if (codeName === 'Unimplemented') {
          finish({ healthy: false, output: `error: this server does not implement the grpc health protocol (grpc.health.v1.Health): ${grpcMessage}` });
        } else if (codeName === 'DeadlineExceeded') {
          finish({ healthy: false, output: `timeout: health rpc did not complete within ${timeout}` });
        } else {
          finish({ healthy: false, output: `error: health rpc probe failed: rpc error: code = ${codeName} desc = ${grpcMessage}` });
        }
        return;
      }
      try {
        const status = decodeHealthCheckResponse(firstGrpcMessage(Buffer.concat(chunks)));
        if (status !== 1) finish({ healthy: false, output: `service unhealthy (responded with "${servingStatusName(status)}")` });
        else finish({ healthy: true, output: 'service healthy' });
      } catch (error) {
        finish({ healthy: false, output: `error: health rpc probe failed: rpc error: code = Internal desc = ${error instanceof Error ? error.message : String(error)}` });
      }
    });
    request.end(encodeHealthCheckRequest(service));
  });
}
