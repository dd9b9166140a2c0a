import fs from 'node:fs';
import path from 'node:path';
import type { NetworkCode } from '../../domain/networks';
import type { JournalEntry } from './types';

/**
 * Append-only JSON-lines journal of one devnet chain (`<dir>/<NETWORK>.jsonl`). Every change is
 * written and fsynced before the operation returns, so a SIGKILL never loses an acknowledged block.
 */
export class DevnetJournal {
  private constructor(
    readonly file: string,
    private fd: number | null,
  ) {}

  /** Opens (creating) the journal and returns the entries written so far. */
  static open(dir: string, network: NetworkCode): { journal: DevnetJournal; entries: JournalEntry[] } {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${network}.jsonl`);
    const entries = readEntries(file);
    return { journal: new DevnetJournal(file, fs.openSync(file, 'a')), entries };
  }

  /** Writes all entries in one write (a reorg and its new blocks land together), then fsyncs. */
  append(entries: readonly JournalEntry[]): void {
    if (this.fd === null) throw new Error(`devnet journal closed: ${this.file}`);
    if (entries.length === 0) return;
    fs.writeSync(this.fd, entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
    fs.fsyncSync(this.fd);
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}

/** A torn last line (killed mid-write, never acknowledged) is cut off; corruption elsewhere throws. */
function readEntries(file: string): JournalEntry[] {
  if (!fs.existsSync(file)) return [];
  const text = fs.readFileSync(file, 'utf8');
  const entries: JournalEntry[] = [];
  let offset = 0;
  while (offset < text.length) {
    const end = text.indexOf('\n', offset);
    const line = text.slice(offset, end === -1 ? text.length : end);
    try {
      if (end === -1) throw new Error('unterminated line');
      if (line.trim() !== '') entries.push(JSON.parse(line) as JournalEntry);
    } catch (error) {
      if (end !== -1 && text.slice(end + 1).trim() !== '') {
        throw new Error(`devnet journal ${file} is corrupt at byte ${offset}: ${(error as Error).message}`);
      }
      fs.truncateSync(file, Buffer.byteLength(text.slice(0, offset)));
      break;
    }
    offset = end + 1;
  }
  return entries;
}
