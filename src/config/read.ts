/**
 * Reading a config file's text, without parsing or validating it: what the stdio relay of a shared
 * instance needs before it knows whether to validate (relay.ts), and what every loader reads through.
 */
import { readFileSync, statSync } from 'node:fs';

/** Largest config file read (a config of 200,000 servers is under 10 MiB). */
export const MAX_CONFIG_BYTES = 32 * 1024 * 1024;

/**
 * The text of the config file `file`. Only a regular file of at most {@link MAX_CONFIG_BYTES} is
 * read: `/dev/zero` would be read until memory ran out, and a FIFO would block the start (or a
 * reload) forever.
 * @throws an Error saying why the file was not read.
 */
export function readConfigText(file: string): string {
  const stat = statSync(file);
  if (stat.isDirectory()) throw new Error('it is a directory');
  if (!stat.isFile()) throw new Error('it is not a regular file');
  if (stat.size > MAX_CONFIG_BYTES) throw new Error(`it is ${stat.size} bytes, over the ${MAX_CONFIG_BYTES}-byte limit for a config`);
  return readFileSync(file, 'utf8');
}
