import type { Metadata } from '@grpc/grpc-js';
import { NotImplementedError } from '../../domain/errors';
import { OperatorServiceService, type OperatorServiceServer } from '../generated/chainpay/v1/operator';
import { serverStream, unary } from '../handler';
import type { ServiceContext } from '../context';

/** Part of the operator plane, built by one feature (e.g. `operatorWebhooks`). */
export type OperatorPiece = Partial<OperatorServiceServer>;

/**
 * The OperatorService: every piece's methods, and UNIMPLEMENTED (after the operator check) for
 * any call of the contract no piece provides yet. Add a feature by passing its piece here.
 */
export function operatorService(ctx: ServiceContext, pieces: readonly OperatorPiece[]): { definition: typeof OperatorServiceService; implementation: OperatorServiceServer } {
  const implementation: Record<string, unknown> = {};
  for (const [method, def] of Object.entries(OperatorServiceService)) {
    const name = def.path.split('/').pop()!;
    const refuse = async (call: { metadata: Metadata }): Promise<never> => {
      ctx.auth.operator(call.metadata);
      throw new NotImplementedError(`OperatorService.${name}`);
    };
    implementation[method] = def.responseStream ? serverStream(ctx.logger, name, refuse) : unary(ctx.logger, name, refuse);
  }
  for (const piece of pieces) Object.assign(implementation, piece);
  return { definition: OperatorServiceService, implementation: implementation as OperatorServiceServer };
}
