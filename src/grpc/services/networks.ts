import type { NetworkSettings } from '../../domain/networks';
import { isNetworkCode } from '../../domain/networks';
import { explorerTemplateProblem, explorerTemplate } from '../../domain/explorers';
import { MalformedRequestError, NotFoundError, ValidationError } from '../../domain/errors';
import { NetworkServiceService, type Network, type NetworkServiceServer } from '../generated/chainpay/v1/networks';
import { recordAudit } from '../../store/repos/audit';
import type { NetworkPatch } from '../../store/repos/network-settings';
import { unary } from '../handler';
import type { ServiceContext } from '../context';
import { operatorIdentity } from './operator-audit';

/** `livemode`: the daemon's mode, the same for every network (devnet and live never mix). */
export function toNetworkMessage(s: NetworkSettings, livemode: boolean): Network {
  return {
    code: s.code,
    name: s.name,
    buyer_network_fee: s.buyerNetworkFee,
    withdrawal_fee: s.withdrawalFee,
    min_invoice: s.minInvoice,
    min_withdrawal: s.minWithdrawal,
    required_confirmations: s.requiredConfirmations,
    deposit_mode: s.depositMode,
    token_contract: s.tokenContract,
    token_decimals: s.tokenDecimals,
    active: s.active,
    chain_mode: livemode ? 'live' : 'devnet',
    explorer_tx_url: explorerTemplate(s.code, s.explorerTxUrl, livemode) ?? '',
  };
}

const DECIMAL = /^\d{1,20}(\.\d{1,18})?$/;

/** 'default': back to the built-in template (stored null); '': no link; else a checked template. */
function explorerField(value: string | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'default') return null;
  if (value === '') return '';
  const problem = explorerTemplateProblem(value);
  if (problem !== null) throw new ValidationError('invalid_explorer_url', `explorer_tx_url ${problem}`, 'explorer_tx_url');
  return value;
}

function decimalField(value: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (!DECIMAL.test(value)) throw new ValidationError('invalid_amount', `${field} must be a non-negative decimal string`, field);
  return value;
}

/**
 * `liveFinalityOf`: the finality depth (reorg window) of a network's live adapter, null on devnet.
 * It is fixed at start (<CODE>_CONFIRMATIONS); required_confirmations may not go below it at run time:
 * an invoice credited with fewer confirmations could be reorged away inside the window (the watcher
 * would then halt). Raising it is always allowed.
 */
export function networkService(ctx: ServiceContext, liveFinalityOf: (code: string) => number | null = () => null): { definition: typeof NetworkServiceService; implementation: NetworkServiceServer } {
  const implementation: NetworkServiceServer = {
    listNetworks: unary(ctx.logger, 'ListNetworks', async (call) => {
      const list = await ctx.networks.list(() => ctx.orm.em.fork(), { includeInactive: call.request.include_inactive });
      return { networks: list.map((s) => toNetworkMessage(s, ctx.livemode)), livemode: ctx.livemode };
    }),
    updateNetworkFees: unary(ctx.logger, 'UpdateNetworkFees', async (call) => {
      const actor = operatorIdentity(ctx, call.metadata);
      const req = call.request;
      if (!req.code) throw new MalformedRequestError('code is required', 'code');
      if (!isNetworkCode(req.code)) throw new NotFoundError('network', req.code);
      const confirmations = req.required_confirmations;
      if (confirmations !== undefined && (!Number.isInteger(confirmations) || confirmations < 1 || confirmations > 10000)) {
        throw new ValidationError('invalid_confirmations', 'required_confirmations must be an integer from 1 to 10000', 'required_confirmations');
      }
      if (req.active === true && !ctx.networks.runs(req.code)) {
        throw new ValidationError(
          'network_unavailable',
          `${req.code} has no chain in this daemon (${ctx.livemode ? `live mode without ${req.code}_RPC_URL` : `${req.code}_ENABLED=false at start`}); it cannot be activated until it runs`,
          'active',
        );
      }
      const finality = liveFinalityOf(req.code);
      if (confirmations !== undefined && finality !== null && confirmations < finality) {
        throw new ValidationError(
          'confirmations_below_finality',
          `required_confirmations ${confirmations} is below the finality depth ${finality} of the live ${req.code} watcher (${req.code}_CONFIRMATIONS at start); to go lower, set ${req.code}_CONFIRMATIONS and restart`,
          'required_confirmations',
          { finality_depth: finality },
        );
      }
      const patch: NetworkPatch = {
        buyerNetworkFee: decimalField(req.buyer_network_fee, 'buyer_network_fee'),
        withdrawalFee: decimalField(req.withdrawal_fee, 'withdrawal_fee'),
        minInvoice: decimalField(req.min_invoice, 'min_invoice'),
        minWithdrawal: decimalField(req.min_withdrawal, 'min_withdrawal'),
        requiredConfirmations: confirmations,
        active: req.active,
        explorerTxUrl: explorerField(req.explorer_tx_url),
      };
      const em = ctx.orm.em.fork();
      const result = await em.transactional(async (tx) => {
        const r = await ctx.networks.update(tx, req.code as never, patch, ctx.clock.now());
        recordAudit(tx, { actor, action: 'network.update', target: `network:${req.code}`, before: r.before, after: r.after, at: ctx.clock.now() });
        return r;
      });
      ctx.networks.forget();
      ctx.logger.info({ network: req.code, before: result.before, after: result.after }, 'network settings changed');
      return toNetworkMessage(result.after, ctx.livemode);
    }),
  };
  return { definition: NetworkServiceService, implementation };
}
