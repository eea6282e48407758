import { RenderBudget, TemplateEngine } from './template';

const engine = new TemplateEngine({ steps: 5000, renderMs: 1000, outputChars: 1000, memory: 100_000, sourceChars: 2000 });
const render = (source: string, data: Record<string, unknown> = { obj: { name: 'ams1', cf: { rack: 'R1' }, location: { name: 'AMS' } } }) =>
  engine.render(engine.compile(source), data);

describe('template sandbox', () => {
  it('renders variables, filters, conditions and loops', () => {
    expect(render('{{ obj.name }}-{{ obj.location.name | upcase }}-{{ obj.cf.rack }}')).toEqual({ value: 'ams1-AMS-R1' });
    expect(render('{% if obj.name == "ams1" %}yes{% else %}no{% endif %}')).toEqual({ value: 'yes' });
    expect(render('{% for x in obj.list %}{{ x }},{% endfor %}', { obj: { list: [1, 2, 3] } })).toEqual({ value: '1,2,3,' });
    expect(render('{{ obj.name | upper }} {{ obj.name | length }} {{ "a b" | title }}')).toEqual({ value: 'AMS1 4 A B' });
    expect(render('{{ obj.missing | default: "none" }}')).toEqual({ value: 'none' });
  });

  it('reports the paths a template reads', () => {
    const t = engine.compile('{{ obj.location.name }}{% for t in obj.tags %}{{ t.name }}{% endfor %}{{ obj[k] }}');
    expect(t.paths).toEqual(expect.arrayContaining([['obj', 'location', 'name'], ['obj', 'tags'], ['obj', '*']]));
    // Every variable's paths, loop variables and assigned ones too (what an export reads of each object).
    const list = engine.compile('{% for d in queryset %}{{ d.location.parent.name }}{% assign x = d.tenant %}{{ x.name }}{% endfor %}');
    expect(list.paths).toEqual([['queryset']]);
    expect(list.variables).toEqual(expect.arrayContaining([['queryset'], ['d', 'location', 'parent', 'name'], ['d', 'tenant'], ['x', 'name']]));
  });

  it('gives a syntax error as a value, with no exception', () => {
    expect(engine.validate('{% if %}')).toEqual(expect.any(String));
    expect(engine.validate('{{ obj.name | no_such_filter }}')).toMatch(/undefined filter/);
    expect(render('{% for x in y %}')).toEqual({ error: expect.any(String) });
  });

  it('reaches no prototype, constructor, process or module loader', () => {
    const escapes = [
      '{{ obj.constructor.constructor("return process")() }}',
      '{{ obj.constructor }}{{ obj.__proto__ }}{{ obj.name.constructor }}{{ "".constructor }}',
      '{{ obj["constructor"]["constructor"] }}',
      '{{ process.env }}{{ require }}{{ global }}{{ globalThis.process }}{{ this }}',
      '{% assign f = obj.constructor %}{{ f.name }}{{ f.prototype }}',
      '{{ obj.name.length }}{{ obj.toString }}{{ obj.hasOwnProperty }}',
      '{% include "/etc/passwd" %}',
      '{% render "../../package.json" %}',
      '{% layout "/etc/hostname" %}x',
    ];
    for (const e of escapes) {
      const r = render(e);
      const out = r.value ?? '';
      expect(out).not.toMatch(/function|native code|\[object|process|root:|"name"/i);
    }
    expect(render('{{ obj.constructor }}|{{ obj.__proto__ }}|{{ obj.toString }}')).toEqual({ value: '||' });
    expect(render('{% include "/etc/passwd" %}')).toEqual({ error: expect.any(String) });
    // Data that names prototype methods is data, never called.
    expect(render('{{ obj }}', { obj: { toString: 'x', valueOf: 'y', toLiquid: 'z' } })).toEqual({ value: '{"toString":"x","valueOf":"y","toLiquid":"z"}' });
  });

  it('stops runaway loops and huge output with a bounded error', () => {
    const started = Date.now();
    expect(render('{% for i in (1..100000000) %}{% for j in (1..100000000) %}x{% endfor %}{% endfor %}')).toEqual({ error: expect.stringMatching(/limit exceeded/) });
    expect(render('{% for i in (1..50000) %}{% for j in (1..50000) %}{% endfor %}{% endfor %}')).toEqual({ error: expect.stringMatching(/limit exceeded/) });
    expect(render('{% for i in (1..5000) %}xxxxxxxxxx{% endfor %}')).toEqual({ error: 'output limit exceeded (1000 characters)' });
    expect(render('{% assign s = "xxxxxxxxxxxxxxxxxxxx" %}{% for i in (1..30) %}{% assign s = s | append: s %}{% endfor %}{{ s | size }}')).toEqual({ error: expect.stringMatching(/limit exceeded/) });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('bounds work by steps, the same on any machine, and by a budget shared by many renders', () => {
    // 1 + 4,999 iterations fit in 5,000 steps; one more does not.
    expect(render('{% for i in (1..4998) %}{% endfor %}')).toEqual({ value: '' });
    expect(render('{% for i in (1..5000) %}{% endfor %}')).toEqual({ error: 'render limit exceeded (5000 steps)' });
    const t = engine.compile('{% for i in (1..1000) %}{% endfor %}done');
    const budget = new RenderBudget(2500);
    expect(engine.render(t, {}, budget)).toEqual({ value: 'done' });
    expect(engine.render(t, {}, budget)).toEqual({ value: 'done' });
    expect(engine.render(t, {}, budget)).toEqual({ error: 'render limit exceeded (the budget of the batch is spent)' });
    expect(engine.render(t, {}, budget).error).toMatch(/budget/);
  });
});
