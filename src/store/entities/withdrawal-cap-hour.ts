import { EntitySchema } from '@mikro-orm/core';

/**
 * The gross sum of a merchant's withdrawals created in one UTC hour, whatever became of them: the
 * rolling daily cap reads at most 25 of these instead of every withdrawal of the last 24 hours.
 * Written only by the triggers of migration 20261126000000-withdrawal-cap-hours (every insert, delete or
 * truncate of withdrawals), never by the application: read-only here.
 * Invariant: `used` = sum(amount) of the withdrawals with this merchant_id whose created_at falls
 * in [hour, hour + 1 h), in any status (rejected and failed ones are subtracted when read).
 */
export class WithdrawalCapHour {
  constructor(
    public merchantId: string,
    public hour: Date,
    public used: string,
  ) {}
}

export const WithdrawalCapHourSchema = new EntitySchema<WithdrawalCapHour>({
  class: WithdrawalCapHour,
  tableName: 'withdrawal_cap_hours',
  properties: {
    merchantId: { type: 'uuid', primary: true },
    hour: { type: 'Date', columnType: 'timestamptz(0)', primary: true },
    used: { type: 'decimal', precision: 38, scale: 18 },
  },
});
