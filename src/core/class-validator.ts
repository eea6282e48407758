import type * as ClassValidator from 'class-validator';

/**
 * The parts of class-validator netkeel uses (the settings' checks, an identity message's e-mail
 * address), each read from the package's module that defines it. The package's index loads
 * every validator it has, and with them libphonenumber-js and the whole of validator.js: ~3 MB
 * of heap in every process, against ~0.3 MB for these. Typed by the package's own declarations;
 * test/architecture/lazy-modules.spec.ts checks that each is the very function the index exports
 * (a version that moves one fails there) and that the index is not loaded with the application.
 */
type Exports = typeof ClassValidator;

function from<K extends keyof Exports>(module: string, name: K): Exports[K] {
  const exported = (require(`class-validator/cjs/${module}`) as Exports)[name];
  if (exported === undefined) throw new Error(`class-validator/cjs/${module} does not export ${name}`);
  return exported;
}

export const IsBoolean = from('decorator/typechecker/IsBoolean', 'IsBoolean');
export const IsInt = from('decorator/typechecker/IsInt', 'IsInt');
export const IsString = from('decorator/typechecker/IsString', 'IsString');
export const IsIn = from('decorator/common/IsIn', 'IsIn');
export const IsOptional = from('decorator/common/IsOptional', 'IsOptional');
export const Validate = from('decorator/common/Validate', 'Validate');
export const ValidatorConstraint = from('decorator/common/Validate', 'ValidatorConstraint');
export const Matches = from('decorator/string/Matches', 'Matches');
export const MinLength = from('decorator/string/MinLength', 'MinLength');
export const isEmail = from('decorator/string/IsEmail', 'isEmail');
export const Max = from('decorator/number/Max', 'Max');
export const Min = from('decorator/number/Min', 'Min');

const { getFromContainer } = require('class-validator/cjs/container') as { getFromContainer: <T>(c: new () => T) => T };
const { Validator } = require('class-validator/cjs/validation/Validator') as { Validator: new () => ClassValidator.Validator };

/** class-validator's `validateSync(object, options)`, as its index defines it (the container's Validator). */
export const validateSync = (object: object, options?: ClassValidator.ValidatorOptions): ClassValidator.ValidationError[] => getFromContainer(Validator).validateSync(object, options);

export type { ValidationArguments, ValidatorConstraintInterface } from 'class-validator';
