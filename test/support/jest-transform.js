/**
 * Jest transformer: TypeScript (ours) and the ESM-only @nestjs packages become CommonJS with
 * decorator metadata, via TypeScript's own transpileModule (no type checking: `npm run build`
 * and `npx tsc --noEmit` do that).
 */
const ts = require('typescript');
const crypto = require('node:crypto');

const options = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  useDefineForClassFields: false,
  esModuleInterop: true,
  resolveJsonModule: true,
  allowJs: true,
  inlineSourceMap: true,
  inlineSources: true,
};

module.exports = {
  process(source, filename) {
    let code = source;
    if (filename.endsWith('.js')) {
      // CommonJS already has a module-relative `require`, and `import.meta.url` becomes the file URL.
      code = code
        .replace(/^\s*const require = createRequire\(import\.meta\.url\);?\s*$/m, '')
        .replace(/import\.meta\.url/g, 'require("node:url").pathToFileURL(__filename).href');
    }
    const out = ts.transpileModule(code, { compilerOptions: options, fileName: filename });
    return { code: out.outputText };
  },
  getCacheKey(source, filename) {
    return crypto.createHash('sha1').update(source).update(filename).update(ts.version).update('v2').digest('hex');
  },
};
