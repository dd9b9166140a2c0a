/**
 * Every word the buyer reads, one table per language (en.ts, es.ts, ru.ts): the type makes the
 * compiler refuse a table with a key missing, and test/checkout/strings.test.ts walks the tables
 * at run time (nested keys, function arity, no empty text). Amounts arrive already formatted
 * (canonical decimal strings); names, references and links are escaped by the html tag.
 */
export interface CheckoutStrings {
  readonly lang: string;
  /** The language's own name, for the switcher. */
  readonly languageName: string;
  readonly languageSwitcher: string;
  readonly documentTitle: (title: string | null) => string;
  readonly skipToContent: string;
  readonly securePayment: string;
  readonly defaultTitle: string;
  // Who is paid, and what to quote (every page)
  readonly paymentTo: (merchant: string) => string;
  readonly referenceLabel: string;
  readonly orderLabel: string;
  readonly invoiceIdLabel: string;
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
    readonly canceled: string;
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
  readonly openInWallet: string;
  /** Under the button; the memo variant only where the network has a memo (TON). */
  readonly openInWalletHelp: string;
  readonly openInWalletHelpMemo: string;
  readonly qrLabel: (amount: string, currency: string, network: string) => string;
  readonly qrHelp: string;
  readonly qrHelpMemo: string;
  readonly qrUnavailable: string;
  /** After a partial payment: the QR code and the button ask for the rest only. */
  readonly remainderHelp: (due: string, currency: string) => string;
  readonly transaction: string;
  readonly keepOpen: string;
  // While the full amount confirms
  readonly confirmingTitle: string;
  readonly confirmingProgress: (confirmations: number, required: number) => string;
  readonly confirmingBody: string;
  // Payments and block explorers
  readonly paymentsHeading: string;
  readonly paymentAmount: (amount: string, currency: string) => string;
  readonly paymentStatus: { readonly confirming: string; readonly confirmed: string; readonly reverted: string };
  readonly viewOnExplorer: string;
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
    readonly canceledTitle: string;
    readonly canceledBody: string;
  };
  // Whom to contact, and what to quote (underpaid, overpaid, expired)
  readonly contact: {
    readonly heading: string;
    readonly underpaid: (merchant: string) => string;
    readonly overpaid: (merchant: string) => string;
    readonly expired: (merchant: string) => string;
    readonly canceled: (merchant: string) => string;
    readonly quote: string;
    readonly supportPage: string;
    readonly supportEmail: string;
    /** No support contact set: the buyer goes back to where they ordered. */
    readonly noContact: (merchant: string) => string;
    /** The merchant has no name set (never shown as an empty string). */
    readonly theMerchant: string;
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
  readonly refusals: {
    readonly network_change_not_allowed: string;
    readonly amount_below_minimum: string;
    readonly unknown_network: string;
    readonly network_unavailable: string;
    readonly too_many_network_changes: string;
    readonly rate_limited: string;
    readonly invoice_not_found: string;
  };
}
