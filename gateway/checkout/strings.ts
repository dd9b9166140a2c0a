/**
 * Every word the buyer reads, in one place. To add a language, add an object of type
 * CheckoutStrings to LANGUAGES under its BCP 47 primary tag; `stringsFor` picks it from the
 * browser's Accept-Language. Amounts arrive already formatted (canonical decimal strings).
 */
export interface CheckoutStrings {
  readonly lang: string;
  readonly documentTitle: (title: string | null) => string;
  readonly skipToContent: string;
  readonly securePayment: string;
  readonly defaultTitle: string;
  // Devnet (test) invoices
  readonly testTitle: (documentTitle: string) => string;
  readonly testBannerTitle: string;
  readonly testBannerBody: string;
  // Amount summary
  readonly amountToSend: string;
  readonly amountStillDue: string;
  readonly amountHeading: string;
  readonly invoiceTotal: string;
  readonly onNetwork: (network: string) => string;
  readonly breakdown: string;
  readonly amount: string;
  readonly platformFee: string;
  readonly networkFee: string;
  readonly networkFeeDepends: string;
  readonly feesPaidByMerchant: string;
  readonly received: string;
  // Status
  readonly statusHeading: string;
  readonly status: {
    readonly chooseNetwork: string;
    readonly pending: string;
    readonly confirming: (confirmations: number, required: number) => string;
    readonly partiallyPaid: (due: string, currency: string) => string;
    readonly paid: string;
    readonly overpaid: string;
    readonly underpaid: (due: string, currency: string) => string;
    readonly expired: string;
    readonly unknown: string;
  };
  readonly timeLeft: string;
  readonly expiring: string;
  readonly daysShort: string;
  readonly liveLost: string;
  readonly noscript: string;
  // Network choice
  readonly chooseNetworkHeading: string;
  readonly chooseNetworkHelp: string;
  readonly payOnAnotherNetwork: string;
  readonly youSend: (amount: string, currency: string) => string;
  readonly networkFeeOf: (fee: string, currency: string) => string;
  readonly belowMinimum: (minimum: string, currency: string) => string;
  readonly noNetworks: string;
  readonly choosing: string;
  readonly chooseFailed: string;
  // Payment instructions
  readonly sendHeading: (currency: string, network: string) => string;
  readonly sendOnly: (currency: string, network: string) => string;
  readonly depositAddress: string;
  readonly memo: string;
  readonly memoRequiredTitle: string;
  readonly memoRequired: string;
  readonly qrLabel: (amount: string, currency: string, network: string) => string;
  readonly qrHelp: string;
  readonly qrUnavailable: string;
  readonly qrTopUp: string;
  readonly transaction: string;
  readonly keepOpen: string;
  // Copy buttons
  readonly copy: string;
  readonly copyAddress: string;
  readonly copyMemo: string;
  readonly copyAmount: string;
  readonly copied: string;
  readonly copiedShort: string;
  readonly copyFailed: string;
  // Outcomes
  readonly result: {
    readonly paidTitle: string;
    readonly paidBody: string;
    readonly overpaidTitle: string;
    readonly overpaidBody: string;
    readonly underpaidTitle: string;
    readonly underpaidBody: (due: string, currency: string) => string;
    readonly expiredTitle: string;
    readonly expiredBody: string;
  };
  // Ways out
  readonly merchantLinks: string;
  readonly goBack: string;
  readonly cancel: string;
  readonly returnToMerchant: string;
  // Error pages
  readonly notFoundTitle: string;
  readonly notFoundBody: string;
  readonly errorTitle: string;
  readonly errorBody: string;
  readonly reference: (id: string) => string;
  readonly backToPayment: string;
  /**
   * Refusals by error code (the daemon's and the gateway's), so the buyer never reads the
   * daemon's English developer text; a code not listed here reads as `chooseFailed`.
   */
  readonly refusals: Readonly<Record<string, string>>;
}

export const EN: CheckoutStrings = {
  lang: 'en',
  documentTitle: (title) => (title ? `Pay: ${title}` : 'Payment'),
  skipToContent: 'Skip to payment details',
  securePayment: 'USDT payment',
  defaultTitle: 'Payment',
  testTitle: (title) => `Test payment: ${title}`,
  testBannerTitle: 'Test payment: no real funds.',
  testBannerBody: 'This invoice runs on a simulated network (devnet). Do not send real USDT: a real wallet cannot pay it, and nothing paid here is real money.',
  amountToSend: 'Amount to send',
  amountStillDue: 'Amount still due',
  amountHeading: 'Amount',
  invoiceTotal: 'Invoice total',
  onNetwork: (network) => `on ${network}`,
  breakdown: 'Price breakdown',
  amount: 'Amount',
  platformFee: 'Service fee',
  networkFee: 'Network fee',
  networkFeeDepends: 'depends on the network',
  feesPaidByMerchant: 'Fees are paid by the merchant.',
  received: 'Received',
  statusHeading: 'Payment status',
  status: {
    chooseNetwork: 'Choose a network to see where to pay.',
    pending: 'Waiting for your payment.',
    confirming: (c, r) => `Payment seen. Confirming: ${c} of ${r} confirmations.`,
    partiallyPaid: (due, cur) => `Partially paid: ${due} ${cur} still due.`,
    paid: 'Paid. Thank you!',
    overpaid: 'Paid. More than the amount due was received.',
    underpaid: (due, cur) => `Underpaid: the invoice ended with ${due} ${cur} missing.`,
    expired: 'Expired. Do not send a payment to this invoice.',
    unknown: 'Checking the payment status…',
  },
  timeLeft: 'Time left',
  expiring: 'Expiring…',
  daysShort: 'd',
  liveLost: 'Live updates interrupted. Reconnecting…',
  noscript: 'Live updates need JavaScript. Reload this page to see the latest status.',
  chooseNetworkHeading: 'Choose a network',
  chooseNetworkHelp: 'Pick the network you will send USDT on. The network fee and the amount to send depend on it.',
  payOnAnotherNetwork: 'Pay on another network',
  youSend: (amount, cur) => `You send ${amount} ${cur}`,
  networkFeeOf: (fee, cur) => `Network fee ${fee} ${cur}`,
  belowMinimum: (min, cur) => `Not available for this amount (minimum ${min} ${cur})`,
  noNetworks: 'No network is available right now. Please try again later.',
  choosing: 'Setting the network…',
  chooseFailed: 'The network could not be set. Please try again.',
  sendHeading: (cur, network) => `Send ${cur} on ${network}`,
  sendOnly: (cur, network) => `Send only ${cur} on the ${network} network, to the address below. Another token or network cannot be credited automatically.`,
  depositAddress: 'Deposit address',
  memo: 'Memo (comment)',
  memoRequiredTitle: 'The memo is required.',
  memoRequired: 'Enter it exactly as shown in your wallet’s comment field. Without it your payment cannot be matched to this invoice.',
  qrLabel: (amount, cur, network) => `QR code to pay ${amount} ${cur} on ${network}`,
  qrHelp: 'Scan with your wallet app: it fills in the address, the amount and the memo.',
  qrUnavailable: 'The QR code is not available. Copy the details below instead.',
  qrTopUp: 'The QR code asks for the full amount, so it is hidden now: enter the address, the amount still due and any memo in your wallet by hand.',
  transaction: 'Transaction',
  keepOpen: 'You can keep this page open: it updates by itself.',
  copy: 'Copy',
  copyAddress: 'Copy address',
  copyMemo: 'Copy memo',
  copyAmount: 'Copy amount',
  copied: 'Copied to the clipboard.',
  copiedShort: 'Copied',
  copyFailed: 'Could not copy. Select the text and copy it by hand.',
  result: {
    paidTitle: 'Payment received',
    paidBody: 'Thank you. Your payment is confirmed.',
    overpaidTitle: 'Payment received',
    overpaidBody: 'Your payment is confirmed. You sent more than the amount due: contact the merchant about the difference.',
    underpaidTitle: 'Payment incomplete',
    underpaidBody: (due, cur) => `The invoice ended before the full amount arrived: ${due} ${cur} was missing. Contact the merchant.`,
    expiredTitle: 'Invoice expired',
    expiredBody: 'This invoice has expired. Do not send a payment to it; ask the merchant for a new one.',
  },
  merchantLinks: 'Merchant',
  goBack: 'Go back to merchant',
  cancel: 'Cancel and return to merchant',
  returnToMerchant: 'Return to merchant',
  notFoundTitle: 'Payment not found',
  notFoundBody: 'This payment link is not valid. Check the link you received from the merchant.',
  errorTitle: 'Something went wrong',
  errorBody: 'The payment page is not available right now. Please try again in a moment.',
  reference: (id) => `Reference: ${id}`,
  backToPayment: 'Back to the payment',
  refusals: {
    network_change_not_allowed: 'The network can no longer be changed: a payment has already arrived or the invoice has ended.',
    amount_below_minimum: 'This amount is below the minimum for that network. Please choose another network.',
    unknown_network: 'That network is not available. Please choose another one.',
    network_unavailable: 'That network is not available right now. Please choose another one or try again later.',
    too_many_network_changes: 'The network was changed too often. Please wait a few minutes before changing it again.',
    rate_limited: 'Too many attempts. Please wait a moment and try again.',
    invoice_not_found: 'This payment link is not valid. Check the link you received from the merchant.',
  },
};

/** The buyer's text for a refusal code (see `refusals`). */
export function buyerRefusal(s: CheckoutStrings, code: string): string {
  return Object.hasOwn(s.refusals, code) ? s.refusals[code]! : s.chooseFailed;
}

export const LANGUAGES: Readonly<Record<string, CheckoutStrings>> = { en: EN };

/** The first language of Accept-Language we have (by q order), else English. */
export function stringsFor(acceptLanguage: string | undefined): CheckoutStrings {
  const wanted = (acceptLanguage ?? '')
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().toLowerCase().split(';');
      const q = Number(
        params
          .find((p) => p.trim().startsWith('q='))
          ?.trim()
          .slice(2) ?? '1',
      );
      return { primary: tag.split('-')[0]!, q: Number.isFinite(q) ? q : 0, index };
    })
    .filter((w) => w.primary !== '' && w.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const w of wanted) {
    // Own keys only: "constructor" or "__proto__" must not find Object.prototype's members.
    if (Object.hasOwn(LANGUAGES, w.primary)) return LANGUAGES[w.primary]!;
  }
  return EN;
}
