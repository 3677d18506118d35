// CertificateSigner: kube-controller-manager's csrsigning controller for the signers kubedesk's CA
// serves (pkg/controller/certificates/signer): once a CertificateSigningRequest for
// kubernetes.io/kube-apiserver-client (or …-client-kubelet) is Approved and not yet Failed or
// issued, it checks the requested usages against the signer's rules, then issues a certificate
// for the request's subject and key, signed by the cluster CA, valid from five minutes ago for
// spec.expirationSeconds (at most the one-year --cluster-signing-duration, never past the CA), and
// writes it to status.certificate. Usages the signer does not allow end in a Failed condition.
import { createPrivateKey, webcrypto } from 'node:crypto';
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { keyAlgorithms, loadX509, randomSerialNumber } from '../../shared/pki/x509';
import { formatTime } from '../../shared/kubernetes/time';
import { conditionsOf } from '../../shared/kubernetes/conditions';
import type { ApiClient } from '../client/apiClient';
import { QueueController } from '../client/controllerLoop';
import type { SharedInformerFactory } from '../client/informer';
import { resources } from '../client/resources';
import { isConflict, isNotFound } from '../client/errors';

export const KUBE_APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';
export const KUBE_APISERVER_CLIENT_KUBELET_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';

const signers = new Set([KUBE_APISERVER_CLIENT_SIGNER, KUBE_APISERVER_CLIENT_KUBELET_SIGNER]);
/** The usages a client certificate may ask for (upstream isValidClientUsages / csr authorizer). */
const clientUsages = new Set(['digital signature', 'key encipherment', 'client auth']);
const maximumDurationSeconds = 365 * 24 * 60 * 60;
const minimumDurationSeconds = 600;
const backdateMs = 5 * 60 * 1000;

export interface CertificateAuthority {
  certPem: string;
  keyPem: string;
}

export interface SigningRequest {
  /** PEM `CERTIFICATE REQUEST` */
  requestPem: string;
  usages: string[];
  expirationSeconds?: number;
  now?: Date;
}

/** Why a signer refuses these usages, or undefined when it accepts them. */
export function clientUsageProblem(usages: readonly string[]): string | undefined {
  const bad = usages.filter((usage) => !clientUsages.has(usage));
  if (bad.length > 0) return `invalid usage for client certificate: ${bad.join(', ')}`;
  if (!usages.includes('client auth')) return 'missing required usages: client auth';
  return undefined;
}

/** Issues a PEM certificate for a PKCS#10 request, signed by `ca`. Throws when the request is malformed or its signature is wrong. */
export async function signCertificateRequest(ca: CertificateAuthority, request: SigningRequest): Promise<string> {
  const x509 = await loadX509();
  const csr = new x509.Pkcs10CertificateRequest(request.requestPem);
  if (!(await csr.verify())) throw new Error('x509: ECDSA verification failure');
  const caKeyObject = createPrivateKey(ca.keyPem);
  const algorithm = caKeyObject.asymmetricKeyType === 'rsa' ? keyAlgorithms['rsa-2048'] : keyAlgorithms['ecdsa-p256'];
  const signingKey = await webcrypto.subtle.importKey('pkcs8', caKeyObject.export({ type: 'pkcs8', format: 'der' }), algorithm.key, false, ['sign']);
  const caCertificate = new x509.X509Certificate(ca.certPem);
  const now = request.now ?? new Date();
  const requested = Math.max(minimumDurationSeconds, Math.min(request.expirationSeconds ?? maximumDurationSeconds, maximumDurationSeconds));
  const notBefore = new Date(now.getTime() - backdateMs);
  const notAfter = new Date(Math.min(now.getTime() + requested * 1000, caCertificate.notAfter.getTime()));
  let keyUsage = 0;
  if (request.usages.includes('digital signature')) keyUsage |= x509.KeyUsageFlags.digitalSignature;
  if (request.usages.includes('key encipherment')) keyUsage |= x509.KeyUsageFlags.keyEncipherment;
  const extended = [];
  if (request.usages.includes('client auth')) extended.push(x509.ExtendedKeyUsage.clientAuth);
  if (request.usages.includes('server auth')) extended.push(x509.ExtendedKeyUsage.serverAuth);
  const extensions = [new x509.BasicConstraintsExtension(false, undefined, true)];
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerialNumber(),
    subject: csr.subject,
    issuer: caCertificate.subject,
    notBefore,
    notAfter,
    signingAlgorithm: algorithm.signing,
    publicKey: csr.publicKey,
    signingKey: signingKey as unknown as CryptoKey,
    extensions: [
      ...extensions,
      ...(keyUsage !== 0 ? [new x509.KeyUsagesExtension(keyUsage, true)] : []),
      ...(extended.length > 0 ? [new x509.ExtendedKeyUsageExtension(extended)] : []),
      await x509.AuthorityKeyIdentifierExtension.create(caCertificate.publicKey),
    ],
  });
  return certificate.toString('pem');
}

function conditionTypes(csr: KubeObject): Set<string> {
  return new Set(conditionsOf(csr).filter((condition) => condition.status === 'True').map((condition) => condition.type));
}

export class CertificateSigner extends QueueController {
  private readonly requests = this.factory.informerFor(resources.certificatesigningrequests);

  constructor(client: ApiClient, factory: SharedInformerFactory, private readonly ca: CertificateAuthority) {
    super(client, factory, { name: 'csrsigning', component: 'certificate-controller' });
    this.handle(this.requests, { onAdd: (csr) => this.enqueue(csr), onUpdate: (_old, csr) => this.enqueue(csr) });
  }

  async reconcile(name: string): Promise<void> {
    const csr = this.requests.get(undefined, name);
    if (!csr || !isRecord(csr.spec)) return;
    const spec = csr.spec;
    if (typeof spec.signerName !== 'string' || !signers.has(spec.signerName)) return;
    const types = conditionTypes(csr);
    if (!types.has('Approved') || types.has('Denied') || types.has('Failed')) return;
    if (isRecord(csr.status) && typeof csr.status.certificate === 'string' && csr.status.certificate !== '') return;
    const usages = Array.isArray(spec.usages) ? spec.usages.map(String) : [];
    const problem = clientUsageProblem(usages);
    let status: Record<string, unknown>;
    const current = isRecord(csr.status) ? csr.status : {};
    if (problem) {
      status = { ...current, conditions: [...(Array.isArray(current.conditions) ? current.conditions : []), this.failedCondition(problem)] };
    } else {
      try {
        const requestPem = Buffer.from(String(spec.request ?? ''), 'base64').toString('utf8');
        const certPem = await signCertificateRequest(this.ca, { requestPem, usages, expirationSeconds: typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : undefined });
        status = { ...current, certificate: Buffer.from(certPem).toString('base64') };
      } catch (error) {
        status = { ...current, conditions: [...(Array.isArray(current.conditions) ? current.conditions : []), this.failedCondition(`error auto signing csr: ${error instanceof Error ? error.message : String(error)}`)] };
      }
    }
    try {
      await this.client.resource(resources.certificatesigningrequests).updateStatus({ ...csr, status });
    } catch (error) {
      // A newer version arrives through the informer and is reconciled again.
      if (isConflict(error) || isNotFound(error)) return;
      throw error;
    }
  }

  private failedCondition(message: string): Record<string, unknown> {
    const now = formatTime(new Date());
    return { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message, lastUpdateTime: now, lastTransitionTime: now };
  }
}
