import * as ts from 'typescript';
import { migrationSource } from './migration-source';

/** Loads a generated migration's class from its source, as the migration runner would (compiled to CommonJS). */
function load(source: string): new () => { up(q: unknown): Promise<void>; down(q: unknown): Promise<void> } {
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
  const module = { exports: {} as Record<string, any> };
  new Function('module', 'exports', 'require', js)(module, module.exports, () => ({}));
  return Object.values(module.exports)[0];
}

/** A query runner that records what it runs and refuses what `refuse` says, with `errno`. */
function runner(refuse: (st: string) => boolean, errno: number) {
  const ran: string[] = [];
  return {
    ran,
    async query(st: string) {
      if (refuse(st)) throw Object.assign(new Error(`refused (${errno})`), { errno });
      ran.push(st);
    },
  };
}

describe('generated migrations', () => {
  const up = ['CREATE TABLE `t` (`id` char(36) NOT NULL)', 'CREATE TRIGGER `t_notify_insert` AFTER INSERT ON `t` FOR EACH ROW SET @x = 1', 'CREATE TRIGGER `t_notify_update` AFTER UPDATE ON `t` FOR EACH ROW SET @x = 1', 'CREATE INDEX `t_idx` ON `t` (`id`)'];
  const down = ['DROP TRIGGER IF EXISTS `t_notify_update`', 'DROP TABLE `t`'];
  const mysql = () => new (load(migrationSource('Watch1', 'mysql', ['t: new table'], { up, down })))();

  it('run every statement on MySQL where triggers may be made', async () => {
    const q = runner(() => false, 0);
    await mysql().up(q);
    // Each trigger dropped first: a run that failed part-way is run again over what it made.
    const made = [up[0], 'DROP TRIGGER IF EXISTS `t_notify_insert`', up[1], 'DROP TRIGGER IF EXISTS `t_notify_update`', up[2], up[3]];
    expect(q.ran).toEqual(made);
    await mysql().down(q);
    expect(q.ran.slice(made.length)).toEqual(down);
  });

  it('leave the change triggers out, with a warning, where the user may not create them (MySQL), and run the rest', async () => {
    for (const errno of [1142, 1227, 1419]) {
      const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
      const q = runner((st) => st.startsWith('CREATE TRIGGER'), errno);
      await mysql().up(q);
      expect(q.ran).toEqual([up[0], 'DROP TRIGGER IF EXISTS `t_notify_insert`', up[3]]);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toContain('cannot create change triggers');
      warn.mockRestore();
    }
  });

  it('fail on any other error of a trigger', async () => {
    const q = runner((st) => st.startsWith('CREATE TRIGGER'), 1064);
    await expect(mysql().up(q)).rejects.toThrow('refused (1064)');
  });

  it('run PostgreSQL statements as they are', async () => {
    const pg = ['CREATE TRIGGER "t_notify_change" AFTER INSERT ON "t" FOR EACH STATEMENT EXECUTE FUNCTION "netkeel_notify_change"()', 'SELECT `${x}` \\ 1'];
    const source = migrationSource('Watch1', 'postgres', ['t: watched'], { up: pg, down: [] });
    expect(source).not.toContain('changeTrigger');
    const q = runner((st) => st.startsWith('CREATE TRIGGER'), 1142);
    await expect(new (load(source))().up(q)).rejects.toThrow('refused (1142)');
    const ok = runner(() => false, 0);
    await new (load(source))().up(ok);
    expect(ok.ran).toEqual(pg);
  });
});
