import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqlite } from './sqlite.js';

const file = () => join(mkdtempSync(join(tmpdir(), 'svc-sqlite-')), 'nested', 'test.db');

describe('openSqlite', () => {
  it('opens in WAL mode and applies only the migrations not yet applied', () => {
    const path = file();
    const first = openSqlite(path, ['CREATE TABLE a (x INTEGER)'], 'test');
    expect(first.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(first.pragma('user_version', { simple: true })).toBe(1);
    first.prepare('INSERT INTO a (x) VALUES (1)').run();
    first.close();
    const second = openSqlite(path, ['CREATE TABLE a (x INTEGER)', 'ALTER TABLE a ADD COLUMN y TEXT'], 'test');
    expect(second.pragma('user_version', { simple: true })).toBe(2);
    expect(second.prepare('SELECT x, y FROM a').all()).toEqual([{ x: 1, y: null }]);
    second.close();
  });

  it('rolls back a failing migration with its version bump', () => {
    const path = file();
    expect(() =>
      openSqlite(path, ['CREATE TABLE a (x INTEGER)', 'CREATE TABLE b (y INTEGER); SELECT nope FROM missing'], 'test'),
    ).toThrow();
    const db = openSqlite(path, ['CREATE TABLE a (x INTEGER)'], 'test');
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'b'").get()).toBeUndefined();
    db.close();
  });

  it('refuses a database newer than the build', () => {
    const path = file();
    openSqlite(path, ['CREATE TABLE a (x INTEGER)', 'CREATE TABLE b (y INTEGER)'], 'test').close();
    expect(() => openSqlite(path, ['CREATE TABLE a (x INTEGER)'], 'svc')).toThrow(/newer than this build knows \(1\); upgrade svc/);
  });
});
