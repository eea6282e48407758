/** What a handler returns when the status or headers are not the defaults. */
export class ApiResponse {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string | string[]> = {},
  ) {}
}

/** A CSV body: rows are produced lazily so long exports stream. */
export class CsvResponse {
  constructor(
    readonly filename: string,
    readonly chunks: AsyncIterable<string>,
    readonly status = 200,
  ) {}
}
