import { DEFAULT_LIMITS, TemplateEngine } from '../../../core/template/template';

/**
 * Bounds of one export (a whole list in one render, so wider than a computed field's): at most
 * EXPORT_MAX_OBJECTS objects, 1,000,000 template steps (about 2.5 s of rendering), a 5 s
 * wall-time backstop, 8 MiB of output, 100,000 characters of template.
 */
export const EXPORT_MAX_OBJECTS = 10_000;
export const exportTemplates = new TemplateEngine({ ...DEFAULT_LIMITS, steps: 1_000_000, renderMs: 5_000, outputChars: 8 * 1024 * 1024, memory: 50_000_000, sourceChars: 100_000 });
