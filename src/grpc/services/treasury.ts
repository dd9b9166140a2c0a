import { isNetworkCode, type NetworkCode } from '../../domain/networks';
import { ConflictError, MalformedRequestError, NotFoundError } from '../../domain/errors';
import { RawSql } from '../../store/raw-sql';
import { recordAudit } from '../../store/repos/audit';
import { treasuryStatus } from '../../treasury/status';
import { NoSweeperError, type Treasury } from '../../treasury/treasury';
import { TreasuryServiceService, type TreasuryServiceServer } from '../generated/chainpay/v1/treasury';
import type { ServiceContext } from '../context';
import { unary } from '../handler';
import { operatorIdentity } from './operator-audit';

/** The operator's treasury calls (docs/treasury.md): status, and sweeping now (audited unless a dry run). */
export function treasuryService(ctx: ServiceContext, treasury: Treasury): { definition: typeof TreasuryServiceService; implementation: TreasuryServiceServer } {
  const sql = new RawSql(ctx.orm);
  const network = (code: string): NetworkCode => {
    if (!isNetworkCode(code) || !ctx.adapters.has(code)) throw new NotFoundError('network', code);
    return code;
  };
  const implementation: TreasuryServiceServer = {
    status: unary(ctx.logger, 'Treasury.Status', async (call) => {
      operatorIdentity(ctx, call.metadata);
      const codes = call.request.network ? [network(call.request.network)] : [...ctx.adapters.keys()];
      const list = await treasuryStatus(sql.query, treasury, treasury.config, codes);
      return {
        networks: list.map((s) => ({
          network: s.network,
          sweepable: s.sweepable,
          automatic: s.automatic,
          hot_address: s.hotAddress,
          hot_usdt: s.hotUsdt,
          hot_gas: s.hotGas,
          gas_coin: s.gasCoin,
          accounts: Object.entries(s.accounts).map(([name, balance]) => ({ name, balance })),
          sweeps_in_flight: s.sweepsInFlight,
          sweeps_completed: s.sweepsCompleted,
          sweeps_reverted: s.sweepsReverted,
          sweep_fees_paid: s.sweepFeesPaid,
          network_fees_collected: s.networkFeesCollected,
        })),
      };
    }),
    sweepNow: unary(ctx.logger, 'Treasury.SweepNow', async (call) => {
      const actor = operatorIdentity(ctx, call.metadata);
      const req = call.request;
      if (!req.network) throw new MalformedRequestError('network is required', 'network');
      const code = network(req.network);
      let planned: Awaited<ReturnType<Treasury['sweep']>>;
      try {
        planned = await treasury.sweep(code, { manual: true, dryRun: req.dry_run, ...(req.address ? { address: req.address } : {}) });
      } catch (error) {
        if (error instanceof NoSweeperError) throw new ConflictError(error.code, error.message, 'network');
        throw error;
      }
      const started = planned.filter((p) => p.sweepId !== null);
      if (!req.dry_run) {
        const em = ctx.orm.em.fork();
        const at = ctx.clock.now();
        recordAudit(em, {
          actor,
          action: 'treasury.sweep',
          target: `network:${code}${req.address ? `:${req.address}` : ''}`,
          before: null,
          after: { sweeps: started.map((p) => ({ id: p.sweepId, address: p.address, amount: p.amount, target: p.target })) },
          at,
        });
        await em.flush();
        ctx.logger.info({ network: code, actor, sweeps: started.length }, 'manual sweep started');
      }
      return {
        sweeps: planned.map((p) => ({
          address: p.address,
          balance: p.balance,
          decision: p.decision,
          target: p.target ?? '',
          amount: p.amount,
          fee: p.fee,
          gas_top_up: p.gasTopUp,
          sweep_id: p.sweepId ?? '',
        })),
      };
    }),
  };
  return { definition: TreasuryServiceService, implementation };
}
