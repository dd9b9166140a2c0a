import { Migration } from '@mikro-orm/migrations';

/**
 * The merchant dashboard's accounts (issue 50): one row per person (an email is one user, of one
 * merchant) and one per signed-in browser. Secrets are never stored in clear: argon2id password
 * hashes, TOTP secrets sealed with the master key, SHA-256 of setup and session tokens.
 */
export class Migration20261129150000DashboardUsers extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "dashboard_users" ("id" uuid not null, "merchant_id" uuid not null, "email" varchar(254) not null, "role" varchar(16) not null, "password_hash" text null, "totp_secret_sealed" text null, "pending_totp_sealed" text null, "totp_last_step" bigint null, "setup_token_hash" varchar(64) null, "setup_expires_at" timestamptz(3) null, "disabled_at" timestamptz(3) null, "time_zone" varchar(64) not null default 'UTC', "credentials_changed_at" timestamptz(3) null, "created_at" timestamptz(3) not null, constraint "dashboard_users_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "dashboard_users_merchant_id_index" on "dashboard_users" ("merchant_id");`);
    this.addSql(`alter table "dashboard_users" add constraint "dashboard_users_email_unique" unique ("email");`);
    this.addSql(`alter table "dashboard_users" add constraint "dashboard_users_setup_token_hash_unique" unique ("setup_token_hash");`);
    this.addSql(
      `create table "dashboard_sessions" ("id" uuid not null, "token_hash" varchar(64) not null, "user_id" uuid not null, "client_address" varchar(64) not null, "user_agent" varchar(300) not null, "created_at" timestamptz(3) not null, "last_seen_at" timestamptz(3) not null, "expires_at" timestamptz(3) not null, "ended_at" timestamptz(3) null, constraint "dashboard_sessions_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "dashboard_sessions_user_id_index" on "dashboard_sessions" ("user_id");`);
    this.addSql(`alter table "dashboard_sessions" add constraint "dashboard_sessions_token_hash_unique" unique ("token_hash");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "dashboard_sessions" cascade;`);
    this.addSql(`drop table if exists "dashboard_users" cascade;`);
  }
}
