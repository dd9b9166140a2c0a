import { operatorAlertOf } from './errors';
import { PayoutInsufficientGasError } from './evm/errors';
import { SolanaHotWalletUnderfundedError, SolanaInsufficientTokenError } from './solana/errors';
import { TonPayoutGasShortError } from './ton/errors';
import { TronFeeLimitTooLowError, TronHotWalletShortError } from './tron/payout-errors';

/** A payout that waits for an operator raises the same alert on every family (payout-steps signRetried logs it). */
describe('operatorAlertOf', () => {
  it('names the alert of every family error that waits for an operator', () => {
    expect(operatorAlertOf(new SolanaHotWalletUnderfundedError({ wallet: 'W', balance: '0', needed: '0.002' }))).toBe('hot_wallet_underfunded');
    expect(operatorAlertOf(new TronHotWalletShortError('TRC20', 'T', 'TRX', '0', '30'))).toBe('hot_wallet_underfunded');
    expect(operatorAlertOf(new TronHotWalletShortError('TRC20', 'T', 'USDT', '1', '5'))).toBe('hot_wallet_underfunded');
    expect(operatorAlertOf(new TonPayoutGasShortError('EQ', '0', '50000000'))).toBe('hot_wallet_underfunded');
    expect(operatorAlertOf(new TronFeeLimitTooLowError('TRC20', '60', '50'))).toBe('payout_fee_limit_too_low');
  });

  it('is undefined for failures and for anything else', () => {
    expect(operatorAlertOf(new SolanaInsufficientTokenError({ wallet: 'W', balance: '1', needed: '5' }))).toBeUndefined();
    expect(operatorAlertOf(new PayoutInsufficientGasError({ network: 'BEP20', wallet: '0x', symbol: 'BNB', balance: '0', needed: null }))).toBeUndefined();
    expect(operatorAlertOf(new Error('hot_wallet_underfunded'))).toBeUndefined();
    expect(operatorAlertOf({ operatorAlert: 'something_else' })).toBeUndefined();
    expect(operatorAlertOf(null)).toBeUndefined();
  });
});
