import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { OPENAPI_DOCUMENT } from '../../gateway/openapi/document';

/**
 * Validates REST responses against the served OpenAPI 3.1 document with a real JSON Schema
 * 2020-12 validator (ajv): a response whose status the operation does not list, or whose body
 * drifts from its schema, throws with ajv's errors.
 */
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: 'openapi', components: OPENAPI_DOCUMENT.components });

type Operation = { responses: Record<string, { content?: Record<string, { schema: { $ref: string } }> }> };

function operationOf(method: string, target: string): { template: string; op: Operation } {
  const path = target.split('?', 1)[0]!;
  const segments = path.split('/');
  for (const [template, item] of Object.entries(OPENAPI_DOCUMENT.paths)) {
    const want = template.split('/');
    if (want.length !== segments.length || !want.every((w, i) => w.startsWith('{') || w === segments[i])) continue;
    const op = (item as Record<string, Operation>)[method.toLowerCase()];
    if (op) return { template, op };
  }
  throw new Error(`OpenAPI: no operation for ${method} ${path}`);
}

export function assertMatchesOpenApi(method: string, target: string, status: number, body: unknown): void {
  const { template, op } = operationOf(method, target);
  const response = op.responses[String(status)];
  if (!response) throw new Error(`OpenAPI: ${method} ${template} does not document status ${status}`);
  const schema = response.content?.['application/json']?.schema;
  if (!schema) return;
  const validate = ajv.getSchema(`openapi${schema.$ref}`) ?? ajv.compile({ $ref: `openapi${schema.$ref}` });
  if (!validate(body)) throw new Error(`OpenAPI: ${method} ${template} ${status} body does not match ${schema.$ref}: ${ajv.errorsText(validate.errors)}`);
}
