import type { Liquid, Template } from 'liquidjs';

type LiquidJs = typeof import('liquidjs');
let loaded: LiquidJs | undefined;
/** liquidjs, loaded when the first template is compiled: ~1 MB of heap that a process rendering no template does without. */
const liquidjs = (): LiquidJs => (loaded ??= require('liquidjs') as LiquidJs);

/**
 * The one template engine of netkeel (computed fields now; export templates, custom links and
 * webhook bodies later): Liquid templates (`{{ obj.name | upcase }}`, `{% if %}`, `{% for %}`)
 * rendered by liquidjs as a sandbox. A template reaches only the data it is given (plain JSON
 * values: own properties only, never a prototype, a constructor or a function; Liquid has no
 * function calls), no file (includes and layouts resolve against an empty in-memory set), and
 * every render is bounded: in steps (template nodes run; a wall-time backstop too), in memory
 * its filters and ranges allocate, and in output.
 * Every failure is a value (`{ error }`), never an exception, so a caller shows a fallback.
 */

/** Bounds of one render. */
export interface TemplateLimits {
  /** Template nodes one render may run (each tag, output and loop iteration is one): the bound that decides, the same on any machine. */
  steps: number;
  /** Wall time of one render, in milliseconds: a backstop only (a loaded machine may stall a cheap render). */
  renderMs: number;
  /** Characters of output. */
  outputChars: number;
  /** Units liquidjs charges for what filters and ranges allocate. */
  memory: number;
  /** Characters of template source. */
  sourceChars: number;
}

export const DEFAULT_LIMITS: TemplateLimits = { steps: 20_000, renderMs: 1_000, outputChars: 16_384, memory: 1_000_000, sourceChars: 20_000 };

/** Steps shared by many renders (one template over a page of objects): once spent, every further render fails at once. */
export class RenderBudget {
  constructor(public steps: number) {}
}

export type Rendered = { value: string; error?: undefined } | { value?: undefined; error: string };

/** A parsed template, reusable for many renders. */
export interface CompiledTemplate {
  readonly source: string;
  /** The template's parse, or why it does not parse. */
  readonly parsed: Template[] | null;
  readonly error: string | null;
  /**
   * The paths of the context it reads (`[['obj', 'location', 'name']]`), so a caller can load
   * what the templates of a page reference in one batch. A segment that is not a constant
   * (`obj[key]`) ends its path with `'*'` (anything below).
   */
  readonly paths: string[][];
  /** The paths of every variable it names, loop variables and `assign`ed ones too (`[['d', 'location', 'name']]`), `'*'` ending a path as above. */
  readonly variables: string[][];
}

/** An error that stops a render at one of its bounds. */
class OutputLimitError extends Error {}

/**
 * liquidjs' render limiter, replaced: it is asked at every template node (with the time), so it
 * counts steps (deterministic) against the render's bound and the shared budget, and keeps the
 * wall-time backstop.
 */
class StepLimiter {
  private n = 0;
  constructor(
    private readonly limits: TemplateLimits,
    private readonly budget: RenderBudget | undefined,
    private readonly deadline: number,
  ) {}
  check(now: number): void {
    if (++this.n > this.limits.steps) throw new OutputLimitError(`render limit exceeded (${this.limits.steps} steps)`);
    if (this.budget && --this.budget.steps < 0) throw new OutputLimitError('render limit exceeded (the budget of the batch is spent)');
    if (now > this.deadline) throw new OutputLimitError(`render limit exceeded (${this.limits.renderMs} ms)`);
  }
  use(): void {}
}

/** liquidjs' output sink, bounded (its own writer has no bound). */
class BoundedEmitter {
  buffer = '';
  constructor(private readonly max: number) {}
  write(html: unknown): void {
    const s = text(html);
    if (this.buffer.length + s.length > this.max) throw new OutputLimitError(`output limit exceeded (${this.max} characters)`);
    this.buffer += s;
  }
}

/** How a value is written out: Liquid's rules, with objects as JSON rather than `[object Object]`. */
function text(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(text).join('');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Filters the Jinja2 spelling of which users of the reference know, as aliases of Liquid's. */
const JINJA_ALIASES: Record<string, string> = { upper: 'upcase', lower: 'downcase', length: 'size', trim: 'strip' };

export class TemplateEngine {
  private engine?: Liquid;
  private readonly cache = new Map<string, CompiledTemplate>();

  constructor(readonly limits: TemplateLimits = DEFAULT_LIMITS) {}

  /** The Liquid engine, made on first use. */
  private get liquid(): Liquid {
    return (this.engine ??= this.make());
  }

  private make(): Liquid {
    const { limits } = this;
    const liquid = new (liquidjs().Liquid)({
      ownPropertyOnly: true,
      // No file system: include/render/layout look only here, and find nothing.
      templates: {},
      strictFilters: true,
      strictVariables: false,
      cache: false,
      parseLimit: limits.sourceChars,
      memoryLimit: limits.memory,
      outputEscape: undefined,
    });
    for (const [jinja, name] of Object.entries(JINJA_ALIASES)) liquid.registerFilter(jinja, liquid.filters[name]);
    liquid.registerFilter('title', (v: unknown) => text(v).toLowerCase().replace(/(^|[^\p{L}\p{N}'])(\p{L})/gu, (_m, a: string, b: string) => a + b.toUpperCase()));
    return liquid;
  }

  /** Parses a template once (kept by source: definitions are few and change rarely). */
  compile(source: string): CompiledTemplate {
    const hit = this.cache.get(source);
    if (hit) return hit;
    let out: CompiledTemplate;
    try {
      if (source.length > this.limits.sourceChars) throw new Error(`template longer than ${this.limits.sourceChars} characters`);
      const parsed = this.liquid.parse(source);
      out = { source, parsed, error: null, paths: this.pathsOf(this.liquid.globalVariableSegmentsSync(parsed)), variables: this.pathsOf(this.liquid.variableSegmentsSync(parsed)) };
    } catch (e) {
      out = { source, parsed: null, error: message(e), paths: [], variables: [] };
    }
    if (this.cache.size >= 1000) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(source, out);
    return out;
  }

  /** Why a template cannot be used (its syntax, an unknown filter), or null. */
  validate(source: string): string | null {
    return this.compile(source).error;
  }

  /** Renders a compiled template over plain JSON data, within its bounds (and the budget given); never throws. */
  render(t: CompiledTemplate, data: Record<string, unknown>, budget?: RenderBudget): Rendered {
    if (!t.parsed) return { error: t.error ?? 'invalid template' };
    try {
      const emitter = new BoundedEmitter(this.limits.outputChars);
      const renderLimit = new StepLimiter(this.limits, budget, performance.now() + this.limits.renderMs);
      const { Context, toValueSync } = liquidjs();
      const ctx = new Context(data, this.liquid.options, { sync: true, ownPropertyOnly: true }, { liquid: this.liquid, renderLimit: renderLimit as never });
      const out: unknown = toValueSync(this.liquid.renderer.renderTemplates(t.parsed, ctx, emitter as never));
      return { value: typeof out === 'string' ? out : emitter.buffer };
    } catch (e) {
      return { error: message(e) };
    }
  }

  private pathsOf(all: unknown[][]): string[][] {
    const out: string[][] = [];
    for (const segments of all) {
      const path: string[] = [];
      for (const s of segments) {
        if (typeof s === 'string' || typeof s === 'number') path.push(String(s));
        else {
          path.push('*');
          break;
        }
      }
      out.push(path);
    }
    return out;
  }
}

/** An error as one line a user can act on (liquidjs adds the template excerpt on later lines). */
function message(e: unknown): string {
  if (e instanceof OutputLimitError) return e.message;
  const cause = loaded && e instanceof loaded.LiquidError && e.originalError instanceof OutputLimitError ? e.originalError.message : null;
  if (cause) return cause;
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0].slice(0, 500);
}

/** The process's engine with the default bounds. */
export const templates = new TemplateEngine();
