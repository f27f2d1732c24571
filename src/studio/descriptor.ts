import { readFileSync, rmSync } from 'node:fs';
import { writeJsonFile } from '../common/json-file.js';

/** The server descriptor (`server.json`): how clients find the running studio. */
export interface ServerDescriptor {
  backend: { url: string };
  port: number;
  pid: number;
  version: string;
  startedAt: string;
  demo: boolean;
  /** Each lane's health entry under its id (lanes' `health`): today alpha's `{ auth }`. */
  alpha: { auth: 'oauth' | 'none' };
}

export function writeDescriptor(file: string, descriptor: ServerDescriptor): void {
  writeJsonFile(file, descriptor, { private: true });
}

export function readDescriptor(file: string): ServerDescriptor | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ServerDescriptor;
  } catch {
    return undefined;
  }
}

/** Removes the descriptor only if it is ours: another server may have replaced it since. */
export function removeDescriptorIfOurs(file: string, owner: { pid: number; port: number }): boolean {
  const current = readDescriptor(file);
  if (!current || current.pid !== owner.pid || current.port !== owner.port) return false;
  rmSync(file, { force: true });
  return true;
}
