import type { ServiceContext } from './grpc/context';
import type { GrpcService } from './grpc/server';
import { networkService } from './grpc/services/networks';
import { merchantService } from './grpc/services/merchants';
import { treasuryService } from './grpc/services/treasury';
import { withdrawalService } from './grpc/services/withdrawals';
import { refundService } from './grpc/services/refunds';
import { operatorService } from './grpc/services/operator';
import { operatorWebhooks } from './grpc/services/operator-webhooks';
import { operatorWithdrawals } from './grpc/services/operator-withdrawals';
import { operatorActors } from './grpc/services/operator-actors';
import { operatorWatchers } from './grpc/services/operator-watchers';
import { operatorDeposits } from './grpc/services/operator-deposits';
import { operatorAudit } from './grpc/services/operator-audit';
import { eventService } from './grpc/services/events';
import { invoiceService } from './grpc/services/invoices';
import { checkoutService } from './grpc/services/checkout';
import { devnetService } from './grpc/services/devnet';
import { dashboardService } from './grpc/services/dashboard';
import { dashboardUserService } from './grpc/services/dashboard-users';

/** What the daemon's gRPC services are built from (src/daemon.ts owns every piece). */
export interface DaemonServicesInput {
  readonly ctx: ServiceContext;
  readonly livemode: boolean;
  /** A network's finality depth when it runs live, else null (GET /v1/networks). */
  readonly liveFinalityOf: (code: string) => number | null;
  readonly webhooks: Parameters<typeof eventService>[1]['webhooks'];
  /** The test ping's delivery settings: the dispatcher's own guard and trust. */
  readonly send: Parameters<typeof eventService>[1]['send'];
  readonly directory: Parameters<typeof operatorActors>[1];
  readonly operatorStreams: AbortSignal;
  readonly watchers: Parameters<typeof operatorWatchers>[1];
  readonly treasury: Parameters<typeof treasuryService>[1];
  readonly dashboard: Parameters<typeof dashboardService>[1];
  readonly devnet: Parameters<typeof devnetService>[1];
  readonly clock: Parameters<typeof devnetService>[2];
}

/**
 * Every gRPC service of the daemon. Live: no devnet control exists at all (not even a refusing one):
 * no simulated payment, no clock jump.
 */
export function daemonServices(i: DaemonServicesInput): GrpcService[] {
  const { ctx } = i;
  const operatorPieces = [
    operatorWebhooks(ctx, i.webhooks),
    operatorWithdrawals(ctx),
    operatorActors(ctx, i.directory, i.operatorStreams),
    operatorWatchers(ctx, i.watchers),
    operatorDeposits(ctx, i.watchers),
    operatorAudit(ctx),
  ];
  const services = [
    networkService(ctx, i.liveFinalityOf),
    merchantService(ctx),
    invoiceService(ctx),
    checkoutService(ctx),
    operatorService(ctx, operatorPieces),
    withdrawalService(ctx),
    treasuryService(ctx, i.treasury),
    refundService(ctx),
    eventService(ctx, { webhooks: i.webhooks, send: i.send }),
    dashboardService(ctx, i.dashboard),
    dashboardUserService(ctx, i.dashboard.accounts),
  ];
  return i.livemode ? services : [...services, devnetService(ctx, i.devnet, i.clock)];
}
