/**
 * class CredentialStore: sign-in state per server entry, and per authorization server (issuer)
 * within it, as one JSON file per server in `<stateDir>/credentials/`. Files are mode 0600 in a
 * 0700 folder that must be the user's alone (`lib/stateDir.ts`), written to a temp file and renamed (atomic), and every read-modify-write holds that
 * file's lock ({@link withFileLock}), so processes sharing the folder never lose each other's
 * writes. A client registration and the tokens it obtained are saved together, so a token is never
 * paired with another process's registration. Source: docs/sign-in.md.
 */
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';
import { withFileLock } from './lock.js';
import { serverFileStem } from './paths.js';
import { ensurePrivateDir, readPrivateFile, UnsafeStateError, writePrivateFile } from '../lib/stateDir.js';

/** What is kept for one authorization server. Times in ms since the epoch. */
export interface IssuerCredentials {
  /** The registration (dynamic, CIMD or configured) the tokens belong to. */
  client?: StoredOAuthClientInformation;
  /** Redirect URIs the registration was made with (a dynamic one is reused only for the same callback). */
  redirectUris?: string[];
  tokens?: StoredOAuthTokens;
  issuedAt?: number;
  expiresAt?: number;
}

/** The whole file for one server entry. */
export interface ServerCredentials {
  /** The server URL these credentials are for (a changed URL starts afresh). */
  url: string;
  /** Issuer of the last saved tokens: the set sent to the server. */
  current?: string;
  issuers: Record<string, IssuerCredentials>;
  discovery?: OAuthDiscoveryState;
  /** The tools the server last listed (not secret), shown while it needs sign-in. */
  tools?: unknown[];
  /** Why the server last needed sign-in, when it does (no secrets: a reason in words). */
  needsSignIn?: string;
  updatedAt?: number;
}

/** Reads and writes {@link ServerCredentials} files under one state folder. */
export class CredentialStore {
  constructor(readonly dir: string) {}

  /** Path of the file for server `key` at `url`. */
  fileFor(key: string, url: string): string {
    return join(this.dir, 'credentials', `${serverFileStem(key, url)}.json`);
  }

  /** The server's credentials, or an empty record when there are none (or the file is unreadable). */
  read(key: string, url: string): ServerCredentials {
    try {
      const parsed = JSON.parse(readPrivateFile(this.fileFor(key, url)) ?? 'null') as ServerCredentials | null;
      if (parsed?.url === url && parsed.issuers && typeof parsed.issuers === 'object') return parsed;
    } catch (error) {
      // Credentials someone else could have written are refused, saying what to fix (lib/stateDir.ts).
      if (error instanceof UnsafeStateError) throw error;
      // Missing or half-written by a crashed older version: start afresh.
    }
    return { url, issuers: {} };
  }

  /** Modification time of the server's file in ms, or 0 when absent (for watching). */
  mtime(key: string, url: string): number {
    try {
      return statSync(this.fileFor(key, url)).mtimeMs;
    } catch {
      return 0;
    }
  }

  /** Applies `change` to the server's record under its lock and writes it atomically; returns the new record. */
  async update(key: string, url: string, change: (record: ServerCredentials) => void): Promise<ServerCredentials> {
    const file = this.fileFor(key, url);
    this.ensureDir();
    return withFileLock(file, async () => {
      const record = this.read(key, url);
      change(record);
      record.updatedAt = Date.now();
      writePrivateFile(file, `${JSON.stringify(record, null, 2)}\n`, this.dir);
      return record;
    });
  }

  /** Forgets the server entirely (logout). Returns true when something was stored. */
  async remove(key: string, url: string): Promise<boolean> {
    const file = this.fileFor(key, url);
    this.ensureDir();
    return withFileLock(file, async () => {
      const existed = this.mtime(key, url) > 0;
      rmSync(file, { force: true });
      return existed;
    });
  }

  /** Runs `work` holding the server's refresh lock (separate from the write lock, which `work` may take). */
  withRefreshLock<T>(key: string, url: string, work: () => Promise<T>): Promise<T> {
    this.ensureDir();
    return withFileLock(`${this.fileFor(key, url)}.refresh`, work);
  }

  /** Makes `credentials/` 0700. @throws UnsafeStateError when it or the state folder is not the user's alone. */
  private ensureDir(): void {
    ensurePrivateDir(join(this.dir, 'credentials'), this.dir);
  }
}

