// A minimal /openapi/v2 document. kubectl validates the items of a `kind: List` file against
// /openapi/v2 itself (it never trusts server-side field validation for v1 Lists) and skips kinds
// the document does not define, so a document without definitions lets those files through,
// while every object is still validated strictly by the server on create. kubectl asks for the
// gnostic protobuf encoding (openapi.v2.Document: swagger = 1, info = 2; Info: title = 1,
// version = 2). JSON clients get the complete document (swaggerV2.ts).
import { KUBERNETES_VERSION } from './openapiDocuments';

/** what kubectl asks for (an old name Go's mime parser cannot read back) … */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
/** … and what kube-openapi answers with */
export const OPENAPI_V2_PROTOBUF_REPLY = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

function field(number: number, payload: Buffer): Buffer {
  if (payload.length > 127) throw new Error('payload too long for this minimal encoder');
  return Buffer.concat([Buffer.from([(number << 3) | 2, payload.length]), payload]);
}

export function openApiV2Protobuf(): Buffer {
  const info = Buffer.concat([field(1, Buffer.from('Kubernetes')), field(2, Buffer.from(KUBERNETES_VERSION))]);
  return Buffer.concat([field(1, Buffer.from('2.0')), field(2, info)]);
}
