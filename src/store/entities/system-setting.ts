import { EntitySchema } from '@mikro-orm/core';

/** Small durable daemon state (e.g. the devnet clock offset), one JSON value per key. */
export class SystemSetting {
  constructor(
    public key: string,
    public value: unknown,
    public updatedAt: Date,
  ) {}
}

export const SystemSettingSchema = new EntitySchema<SystemSetting>({
  class: SystemSetting,
  tableName: 'system_settings',
  properties: {
    key: { type: 'string', length: 80, primary: true },
    value: { type: 'json' },
    updatedAt: { type: 'Date', columnType: 'timestamptz(3)' },
  },
});
