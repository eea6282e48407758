/**
 * Domain errors thrown by services and mapped to HTTP by the exception filter (DESIGN rule 9).
 */
export type FieldErrors = Record<string, string[]>;

export class DomainError extends Error {}

/** 400 with a field -> messages map (or, for bulk creates, a list of them). */
export class ValidationError extends DomainError {
  constructor(readonly errors: FieldErrors | FieldErrors[] | string[]) {
    super('Validation failed');
  }
  static field(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }
}

/** 400 with `{"detail": ...}` (parse errors, bad parameters that are not field-shaped). */
export class BadRequestError extends DomainError {}

export class NotFoundError extends DomainError {
  constructor(message = 'Not found.') {
    super(message);
  }
}

export class PermissionDeniedError extends DomainError {
  constructor(message = 'You do not have permission to perform this action.') {
    super(message);
  }
}

export class NotAuthenticatedError extends DomainError {
  constructor(message = 'Authentication credentials were not provided.') {
    super(message);
  }
}

/** 409: the object is protected by others that depend on it, or the state conflicts. */
export class ConflictError extends DomainError {}

export class MethodNotAllowedError extends DomainError {
  constructor(method: string) {
    super(`Method "${method}" not allowed.`);
  }
}

export class NotAcceptableError extends DomainError {
  constructor(message = 'Could not satisfy the request Accept header.') {
    super(message);
  }
}

export class UnsupportedMediaTypeError extends DomainError {
  constructor(type: string) {
    super(`Unsupported media type "${type}" in request.`);
  }
}

/** DRF's Throttled: 429 with its sentence (singular for one second) and `Retry-After`. */
export class TooManyRequestsError extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super(`Request was throttled. Expected available in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}.`);
  }
}

/** The representation of an HTTP error status + body that the filter sends. */
export class HttpResult extends DomainError {
  constructor(readonly status: number, readonly body: unknown, readonly headers: Record<string, string> = {}) {
    super(`HTTP ${status}`);
  }
}
