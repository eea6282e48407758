/** Python's reserved keywords (a slug is imported as a Python package by the reference). */
const KEYWORDS = new Set('False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(' '));
/** Modules built into CPython (sys.builtin_module_names), which a slug may not shadow. */
const BUILTINS = new Set('_abc _ast _codecs _collections _functools _imp _io _locale _operator _signal _sre _stat _string _symtable _thread _tokenize _tracemalloc _typing _warnings _weakref atexit builtins errno faulthandler gc itertools marshal posix pwd sys time xxsubtype'.split(' '));

const pyRepr = (s: string) => (s.includes("'") && !s.includes('"') ? `"${s}"` : `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`);

/** The reference's validate_git_ref: a non-empty ref without whitespace that git cannot take for an option. */
export function branchError(value: unknown, name = 'branch'): string | undefined {
  if (typeof value !== 'string' || !value) return `${name} must be a non-empty string`;
  if (/\s/.test(value)) return `Invalid ${name} ${pyRepr(value)}: must not contain whitespace`;
  if (value.startsWith('-')) return `Invalid ${name} ${pyRepr(value)}: must not start with '-'`;
  return undefined;
}

/** The reference's validate_commit_hexsha: empty, or 4-48 hexadecimal characters. */
export function commitError(value: unknown, name = 'current_head'): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !/^[0-9a-fA-F]{4,48}$/.test(value)) return `Invalid ${name} ${pyRepr(String(value))}: must be 4-48 hexadecimal characters`;
  return undefined;
}

/** The reference's check_name_safe_to_import_privately, for the names netkeel can know (no Python packages are installed here). */
export function slugImportError(slug: string): string | undefined {
  const why = !/^[A-Za-z_][A-Za-z0-9_]*$/.test(slug) ? 'not a valid identifier' : KEYWORDS.has(slug) ? 'a reserved keyword' : BUILTINS.has(slug) ? 'a Python builtin' : null;
  return why ? `Please choose a different slug; ${pyRepr(slug)} is ${why}` : undefined;
}
