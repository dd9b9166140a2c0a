import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Each reliability test writes what it did (cases, kills, faults, violations) to one JSON file per
 * run, outside the repository: docs/operations.md records a long-mode run's figures from it.
 * CHAINPAY_RELIABILITY_FIGURES names the file; default <tmp>/chainpay-reliability-figures.json.
 */
export function recordFigures(test: string, figures: Record<string, unknown>): void {
  const file = process.env.CHAINPAY_RELIABILITY_FIGURES ?? path.join(os.tmpdir(), 'chainpay-reliability-figures.json');
  let all: Record<string, unknown> = {};
  try {
    all = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    // First test of the run, or an unreadable file from another run: start over.
  }
  all[test] = { ...figures, at: new Date().toISOString() };
  fs.writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`);
}
